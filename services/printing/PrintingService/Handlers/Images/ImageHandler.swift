import Contract
import Foundation
import PrintingContract

/// The caller's own images: upload, read (as stored, or checked printable), list and delete.
/// An image an order names is kept: `orders` is asked before a delete (nil: only printing's own
/// tables are asked, as in tests without an orders worker).
public struct ImageHandler: Sendable {
    let images: ImageLibrary
    let orders: OrdersClient?

    /// Creates the handler.
    public init(images: ImageLibrary, orders: OrdersClient?) {
        self.images = images
        self.orders = orders
    }

    /// `upload_image`.
    public func upload(_ request: Printing.UploadImage.Request, actor: Actor) async throws -> Printing.ImageInfo {
        try await images.upload(request, actor: actor)
    }

    /// `get_image`: with `printable`, only when the image prints at the card's resolution.
    public func get(_ request: Printing.GetImage.Request, actor: Actor) async throws -> Printing.ImageInfo {
        if request.printable == true { return try await images.printable(request.id, actor: actor) }
        return try await images.info(request.id, actor: actor)
    }

    /// `list_images`.
    public func list(_ request: PageRequest, actor: Actor) async throws -> Page<Printing.ImageInfo> {
        try await images.list(request, actor: actor)
    }

    /// `delete_image`; `requestId` goes with the question to orders.
    public func delete(_ request: Printing.DeleteImage.Request, actor: Actor, requestId: String) async throws -> Empty {
        try await images.delete(request.id, actor: actor) { [orders] imageId in
            guard let orders else { return false }
            return try await orders.imageInOrders(imageId, actor: actor, requestId: requestId)
        }
        return Empty()
    }
}
