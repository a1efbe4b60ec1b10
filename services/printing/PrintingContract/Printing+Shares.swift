import Contract
import Foundation

/// Share pages: an opt-in public page for a sent card (`/s/{token}`), with Open Graph and
/// Twitter Card tags so that link previews (Facebook, X, Instagram, messengers) show the card.
/// Its token (256 random bits) is the only credential; the page never shows a recipient.
extension Printing {
    /// A card's share page as its owner sees it.
    public struct Share: Codable, Sendable, Hashable {
        /// The order the card belongs to.
        public var orderId: String
        /// The public page, absolute (`PUBLIC_BASE_URL` + `/s/{token}`).
        public var url: String
        /// The card's public image, absolute (`/s/{token}/image`).
        public var imageUrl: String
        public var createdAt: Date
        public init(orderId: String, url: String, imageUrl: String, createdAt: Date) {
            self.orderId = orderId
            self.url = url
            self.imageUrl = imageUrl
            self.createdAt = createdAt
        }
    }

    /// A request naming one of the caller's orders.
    public struct OrderRef: Codable, Sendable, Hashable {
        public var orderId: String
        public init(orderId: String) { self.orderId = orderId }
        // The API's path names the order `id` (`/v1/orders/{id}/share`).
        private enum CodingKeys: String, CodingKey { case orderId = "id" }
    }

    /// A request naming a share page by its token.
    public struct ShareToken: Codable, Sendable, Hashable {
        public var token: String
        public init(token: String) { self.token = token }
    }

    /// `share_card`: makes (or, when one is active, returns the same) public page for the
    /// caller's sent card: a rendered e-card, or a postcard handed to the post (`mailed`).
    /// `not_found` for an order that is not the caller's or has no card; `failed_precondition`
    /// while the card is not sent yet.
    public enum ShareCard: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "share_card"
        public typealias Request = OrderRef
        public typealias Reply = Share
    }

    /// `unshare_card`: revokes the caller's share page of an order (nothing to revoke is fine);
    /// the page and its image then answer 404. A later `share_card` makes a new token.
    public enum UnshareCard: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "unshare_card"
        public typealias Request = OrderRef
        public typealias Reply = Empty
    }

    /// `share_page`: the HTML of an active share page (no actor needed).
    public enum SharePage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "share_page"
        public typealias Request = ShareToken

        public struct Reply: Codable, Sendable, Hashable {
            public var html: String
            public init(html: String) { self.html = html }
        }
    }

    /// `share_image`: the JPEG of an active share page (no actor needed).
    public enum ShareImage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "share_image"
        public typealias Request = ShareToken
        public typealias Reply = ECardImage.Reply
    }
}
