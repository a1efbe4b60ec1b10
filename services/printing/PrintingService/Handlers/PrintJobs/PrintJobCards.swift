import Contract
import Foundation
import OrdersContract
import PrintingContract
import ServiceKit

/// The content of each card of a job: the order owner's image (read as that owner, so an order
/// cannot print someone else's upload), the stamp of the tariff in force, the greeting and one
/// recipient per card.
public struct PrintJobCards: Sendable {
    let images: ImageLibrary
    let previews: PreviewHandler

    /// Creates the builder.
    public init(images: ImageLibrary, postage: PostageHandler) {
        self.images = images
        self.previews = PreviewHandler(images: images, postage: postage)
    }

    /// Where the cards' PDFs are drawn.
    var pool: DedicatedThreadPool { images.pool }

    /// One ``PostcardContent`` per recipient, in order; the image is decoded once, at the smallest
    /// scale that still prints at ``PostcardContent/printDPI``, and its edits are applied once.
    func contents(of postcard: Orders.PostcardDetails, owner: String) async throws -> [PostcardContent] {
        guard let size = CardSize(rawValue: postcard.size.uppercased()) else {
            throw ServiceError.invalidArgument("the order's card size '\(postcard.size)' is not A6, A5 or A4")
        }
        let edits = try PostcardEdit.list(postcard.edits, field: "postcard.edits")
        var card = PostcardContent(size: size, greeting: postcard.greeting ?? "", recipient: nil, edits: edits)
        if let id = postcard.imageId {
            let (pixels, orientation) = try await images.pixels(id, actor: Actor(userId: owner, roles: [Role.user])) {
                image in
                PostcardContent.decodeScale(
                    width: image.width, height: image.height, size: size, edits: edits, dpi: PostcardContent.printDPI)
            }
            card.image = pixels
            card.orientation = orientation
        }
        card.stamp = try await previews.stamp()
        return postcard.recipients.map { recipient in
            var one = card
            one.recipient = recipient
            return one
        }
    }
}
