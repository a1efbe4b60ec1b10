import Contract
import Foundation
import PrintingContract

/// Previews for the app: gathers the caller's image, the stamp of the tariff in force and the
/// text, and renders one side.
public struct PreviewHandler: Sendable {
    let images: ImageLibrary
    let postage: PostageHandler

    /// Creates the handler.
    public init(images: ImageLibrary, postage: PostageHandler) {
        self.images = images
        self.postage = postage
    }

    /// Resolution of a preview (of the trimmed card) when no width is asked for.
    public static let dpi = 100.0

    /// Longest greeting accepted, in characters.
    public static let maxGreeting = 2_000

    /// Renders the side `request` asks for, `width` pixels wide (else at ``dpi``), as a JPEG
    /// within ``PreviewJPEG``'s budget or, when asked for (``PreviewFormat``), a PNG.
    public func preview(_ request: Printing.PreviewPostcard.Request, actor: Actor) async throws
        -> Printing.PreviewPostcard.Reply
    {
        guard let size = CardSize(rawValue: request.size.uppercased()) else {
            throw ServiceError.invalidArgument("size is one of A6, A5, A4", field: "size")
        }
        guard let side = PostcardRenderer.Side(rawValue: request.side.lowercased()) else {
            throw ServiceError.invalidArgument("side is front or back", field: "side")
        }
        let format = try PreviewFormat.choose(format: request.format, accept: request.accept)
        let range = Printing.PreviewPostcard.minWidth...Printing.PreviewPostcard.maxWidth
        if let width = request.width, !range.contains(width) {
            throw ServiceError.invalidArgument(
                "w, the width, is \(range.lowerBound) to \(range.upperBound) pixels", field: "w")
        }
        let width = request.width ?? Int((size.trim.width / 72 * Self.dpi).rounded())
        let dpi = PostcardRenderer.dpi(width: width, size: size)
        guard (request.greeting ?? "").count <= Self.maxGreeting else {
            throw ServiceError.invalidArgument(
                "the greeting is at most \(Self.maxGreeting) characters", field: "greeting")
        }
        let edits = try PostcardEdit.list(request.edits, field: "edits")
        var content = PostcardContent(
            size: size, greeting: request.greeting ?? "", recipient: request.recipient, edits: edits)
        if let id = request.imageId, side == .back {
            _ = try await images.info(id, actor: actor)
        } else if let id = request.imageId {
            let (pixels, orientation) = try await images.pixels(id, actor: actor) { image in
                PostcardContent.decodeScale(
                    width: image.width, height: image.height, size: size, edits: edits, dpi: dpi)
            }
            content.image = pixels
            content.orientation = orientation
        }
        content.stamp = side == .back ? try await stamp() : nil
        let card = content
        let bytes = try await images.pool.run {
            PostcardRenderer.preview(card, side: side, width: width, format: format)
        }
        guard !bytes.isEmpty else { throw ServiceError(.internal, "the preview did not encode") }
        return Printing.PreviewPostcard.Reply(
            mediaType: format.mediaType, data: Data(bytes).base64EncodedString(),
            warning: side == .front ? content.resolutionWarning : nil)
    }

    /// The stamp of the tariff in force, or none when no tariff is in force.
    func stamp() async throws -> DecodedPixels? {
        guard let tariff = try? await postage.active(), let stamp = try await postage.store.stamp(tariff.id),
            let format = ImageFormat(contentType: stamp.mediaType)
        else { return nil }
        return try? PixelDecoder.decode(stamp.bytes, format: format)
    }
}
