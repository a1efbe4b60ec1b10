import Contract
import Crypto
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import PrintingContract
import Store

/// Share pages in `printing.shares`: at most one active page per order, made from the owner's
/// sent card (a `ready` e-card or a `mailed` print job), served by a 256-bit token, revoked by
/// stamping `revoked_at` (a revoked token never answers again).
public struct ShareStore: Sendable {
    /// The pool.
    public let client: PostgresClient
    /// The public base of absolute links (`PUBLIC_BASE_URL`, e.g. `https://cards.example.org`).
    public let publicBaseURL: String
    let clock: any WallClock
    let logger: Logger

    /// Creates the store.
    public init(client: PostgresClient, publicBaseURL: String, clock: any WallClock, logger: Logger) {
        self.client = client
        self.publicBaseURL = publicBaseURL.hasSuffix("/") ? String(publicBaseURL.dropLast()) : publicBaseURL
        self.clock = clock
        self.logger = logger
    }

    /// A caller's card that can be shared.
    enum Card: Sendable {
        /// A rendered e-card: its image (front and greeting side) as it was mailed.
        case ecard(image: ECardImage.Rendered, greeting: String?)
        /// A postcard handed to the post: what was printed (the image is drawn from it).
        case postcard(Orders.PostcardDetails)
    }

    /// The page's link for `token`.
    public func pageURL(token: String) -> String { "\(publicBaseURL)/s/\(token)" }
    /// The image's link for `token`.
    public func imageURL(token: String) -> String { "\(publicBaseURL)/s/\(token)/image" }

    /// The order id as stored by printing (a lower-case UUID), or `not_found`.
    static func orderKey(_ orderId: String) throws(ServiceError) -> String {
        guard let id = UUID(uuidString: orderId) else { throw ServiceError.notFound("no such order") }
        return id.uuidString.lowercased()
    }

    /// The caller's sent card of `orderId`: `not_found` when the caller has no card for it,
    /// `failed_precondition` while it is not sent yet.
    func card(orderId: String, userId: String) async throws -> Card {
        let order = try Self.orderKey(orderId)
        let ecards = try await client.fetch(
            """
            SELECT status, image, width, height, ecard->>'greeting' FROM printing.ecards
            WHERE order_id = \(order) AND user_id = \(userId)
            """, logger: logger)
        for try await (status, image, width, height, greeting) in ecards.decode(
            (String, ByteBuffer?, Int?, Int?, String?).self)
        {
            guard status == "ready", let image, let width, let height else { throw Self.notSent(status) }
            return .ecard(
                image: ECardImage.Rendered(jpeg: Array(image.readableBytesView), width: width, height: height),
                greeting: greeting)
        }
        let jobs = try await client.fetch(
            "SELECT status, postcard::text FROM printing.print_jobs WHERE order_id = \(order) AND user_id = \(userId)",
            logger: logger)
        for try await (status, postcard) in jobs.decode((String, String).self) {
            guard status == "mailed" else { throw Self.notSent(status) }
            return .postcard(try Wire.makeDecoder().decode(Orders.PostcardDetails.self, from: Data(postcard.utf8)))
        }
        throw ServiceError.notFound("no such order")
    }

    static func notSent(_ status: String) -> ServiceError {
        ServiceError(
            .failedPrecondition, "only a sent card can be shared; this one is \(status)",
            details: ["reason": "not_sent", "status": .string(status)])
    }

    /// The active share of the caller's order, if any.
    func active(orderId: String, userId: String) async throws -> Printing.Share? {
        let order = try Self.orderKey(orderId)
        let rows = try await client.fetch(
            """
            SELECT token, created_at FROM printing.shares
            WHERE order_id = \(order) AND user_id = \(userId) AND revoked_at IS NULL
            """, logger: logger)
        for try await (token, created) in rows.decode((String, Date).self) {
            return Printing.Share(
                orderId: order, url: pageURL(token: token), imageUrl: imageURL(token: token), createdAt: created)
        }
        return nil
    }

    /// Stores a new page for the order unless one is active (a concurrent request made it
    /// first); answers the active one either way.
    func insert(
        orderId: String, userId: String, title: String, description: String, image: ECardImage.Rendered
    ) async throws -> Printing.Share {
        let order = try Self.orderKey(orderId)
        let now = clock.now()
        try await client.fetch(
            """
            INSERT INTO printing.shares
                (id, order_id, user_id, token, title, description, image, width, height, created_at)
            VALUES (\(UUID()), \(order), \(userId), \(ECardStore.newToken()), \(title), \(description),
                    \(ByteBuffer(bytes: image.jpeg)), \(image.width), \(image.height), \(now))
            ON CONFLICT (order_id) WHERE revoked_at IS NULL DO NOTHING
            """, logger: logger)
        guard let share = try await active(orderId: orderId, userId: userId) else {
            throw ServiceError(.conflict, "the share page was revoked while it was being made; ask again")
        }
        return share
    }

    /// Revokes the caller's active page of the order; true when there was one.
    @discardableResult
    func revoke(orderId: String, userId: String) async throws -> Bool {
        let order = try Self.orderKey(orderId)
        let rows = try await client.fetch(
            """
            UPDATE printing.shares SET revoked_at = \(clock.now())
            WHERE order_id = \(order) AND user_id = \(userId) AND revoked_at IS NULL
            RETURNING id
            """, logger: logger)
        var revoked = false
        for try await _ in rows { revoked = true }
        return revoked
    }

    /// The page of an active token; `not_found` for any other (unknown or revoked).
    public func page(token: String) async throws -> SharePage {
        guard Self.plausible(token) else { throw ServiceError.notFound("no such page") }
        let rows = try await client.fetch(
            """
            SELECT title, description, width, height FROM printing.shares
            WHERE token = \(token) AND revoked_at IS NULL
            """, logger: logger)
        for try await (title, description, width, height) in rows.decode((String, String, Int, Int).self) {
            return SharePage(
                pageURL: pageURL(token: token), imageURL: imageURL(token: token), title: title,
                description: description, imageWidth: width, imageHeight: height)
        }
        throw ServiceError.notFound("no such page")
    }

    /// The JPEG of an active token; `not_found` for any other.
    public func image(token: String) async throws -> Printing.ShareImage.Reply {
        guard Self.plausible(token) else { throw ServiceError.notFound("no such image") }
        let rows = try await client.fetch(
            "SELECT image FROM printing.shares WHERE token = \(token) AND revoked_at IS NULL", logger: logger)
        for try await bytes in rows.decode(ByteBuffer.self) {
            return .init(mediaType: "image/jpeg", data: Data(bytes.readableBytesView).base64EncodedString())
        }
        throw ServiceError.notFound("no such image")
    }

    /// A token of the shape ``ECardStore/newToken()`` makes (43 base64url characters).
    static func plausible(_ token: String) -> Bool {
        token.utf8.count == 43
            && token.utf8.allSatisfy {
                ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95
            }
    }
}
