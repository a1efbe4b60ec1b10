import AuthContract
import Contract
import Foundation
import OrdersContract
import PrintingContract

/// Share pages of sent cards: makes one from the owner's card (an e-card's image as mailed, or a
/// mailed postcard drawn front and greeting side, never its address side), revokes it, and
/// serves its HTML and image by token.
public struct ShareHandler: Sendable {
    let store: ShareStore
    let images: ImageLibrary
    /// Resolution a postcard's share image is drawn at.
    public var dpi = 100.0

    /// Creates the handler.
    public init(store: ShareStore, images: ImageLibrary) {
        self.store = store
        self.images = images
    }

    /// The caller's page of `orderId`: the active one if there is one (the same link each time),
    /// else a new one. The image is drawn before anything is stored.
    public func share(_ request: Printing.OrderRef, actor: Actor) async throws -> Printing.Share {
        if let active = try await store.active(orderId: request.orderId, userId: actor.userId) { return active }
        let card = try await store.card(orderId: request.orderId, userId: actor.userId)
        let (title, description, image): (String, String, ECardImage.Rendered)
        switch card {
        case .ecard(let rendered, let greeting):
            (title, description, image) = ("An e-card", SharePage.description(greeting: greeting), rendered)
        case .postcard(let postcard):
            let content = try await content(of: postcard, owner: actor.userId)
            let rendered = try await images.pool.run { [dpi] in ECardImage.render(content, dpi: dpi) }
            guard !rendered.jpeg.isEmpty else { throw ServiceError(.internal, "the JPEG encoder gave no bytes") }
            (title, description, image) = ("A postcard", SharePage.description(greeting: postcard.greeting), rendered)
        }
        return try await store.insert(
            orderId: request.orderId, userId: actor.userId, title: "\(title) from \(SharePage.siteName)",
            description: description, image: image)
    }

    /// Revokes the caller's page of `orderId` (nothing to revoke is no error).
    @discardableResult
    public func unshare(_ request: Printing.OrderRef, actor: Actor) async throws -> Empty {
        try await store.revoke(orderId: request.orderId, userId: actor.userId)
        return Empty()
    }

    /// The HTML of the page `request.token` names (anyone with the token).
    public func page(_ request: Printing.SharePage.Request) async throws -> Printing.SharePage.Reply {
        .init(html: try await store.page(token: request.token).html)
    }

    /// The image of the page `request.token` names (anyone with the token).
    public func image(_ request: Printing.ShareImage.Request) async throws -> Printing.ShareImage.Reply {
        try await store.image(token: request.token)
    }

    /// What a postcard's share image shows: its front and its greeting, no recipient.
    func content(of postcard: Orders.PostcardDetails, owner: String) async throws -> PostcardContent {
        let size = CardSize(rawValue: postcard.size.uppercased()) ?? .a6
        let edits = try PostcardEdit.list(postcard.edits, field: "postcard.edits")
        var content = PostcardContent(size: size, greeting: postcard.greeting ?? "", edits: edits)
        if let imageId = postcard.imageId {
            let (pixels, orientation) = try await images.pixels(
                imageId, actor: Actor(userId: owner, roles: [Role.user])
            ) { [dpi] image in
                PostcardContent.decodeScale(
                    width: image.width, height: image.height, size: size, edits: edits, dpi: dpi)
            }
            content.image = pixels
            content.orientation = orientation
        }
        return content
    }
}
