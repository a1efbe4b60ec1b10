import Contract
import Foundation
import PrintingContract
import ServiceKit

extension ImageLibrary {
    /// The image `id` (as ``info(_:actor:)`` finds it) once its original has gone through the
    /// renderer's decoder at its cheapest size (``PixelDecoder/probe(_:format:)``). An original
    /// the renderer cannot draw is `failed_precondition` naming the image, so that an order is
    /// refused before it is charged instead of its print job failing after.
    public func printable(_ id: String, actor: Actor) async throws -> Printing.ImageInfo {
        let image = try await info(id, actor: actor)
        guard let format = ImageFormat(contentType: image.mediaType) else {
            throw Self.unprintable(image.id, "its media type \(image.mediaType) is not one the renderer reads")
        }
        let url = originals.url(sha256: image.sha256, format: format)
        let problem = try await pool.run { () throws -> ImageRejection? in
            let bytes = try [UInt8](Data(contentsOf: url))
            do {
                try PixelDecoder.probe(bytes, format: format)
                return nil
            } catch let rejection as ImageRejection {
                return rejection
            }
        }
        if let problem { throw Self.unprintable(image.id, problem.message) }
        return image
    }

    /// The answer for an image that cannot be printed, with the decoder's reason.
    static func unprintable(_ id: String, _ reason: String) -> ServiceError {
        ServiceError(
            .failedPrecondition, "image \(id) cannot be printed: \(reason)",
            details: ["reason": "unprintable_image", "imageId": .string(id)])
    }
}
