import Contract
import Foundation
import Logging
import PrintingContract
import ServiceKit
import ServiceLifecycle
import Store

/// Claims e-card render attempts (`SKIP LOCKED`, shared by replicas), draws each card's front and
/// back side by side into a JPEG and records it with ``ECardStore/markReady(_:image:senderName:)``.
/// A failed attempt is retried with the queue's back-off; after the last one the e-card is
/// `failed` with the reason.
public struct ECardRenderer: Service {
    /// The e-cards.
    public let store: ECardStore
    /// The front images.
    public let images: ImageLibrary
    /// Asked for the account's name when a card does not say how it is signed.
    public let accounts: AuthClient
    /// Resolution of each side, in dots per inch of the trimmed card.
    public var dpi: Double = 150
    /// How long a claim holds an attempt, in seconds (`PRINT_RENDER_LEASE_MS`): a render takes
    /// well under a second, so a job whose renderer was killed is taken again within a minute.
    public var lease: TimeInterval = 60
    /// How often an idle renderer looks for due attempts.
    public var pollInterval: Duration = .milliseconds(500)
    let wake: AsyncStream<Void>
    let logger: Logger

    /// Creates a renderer; `wake` nudges it to look now.
    public init(
        store: ECardStore, images: ImageLibrary, accounts: AuthClient, wake: AsyncStream<Void>, logger: Logger
    ) {
        self.store = store
        self.images = images
        self.wake = wake
        self.logger = logger
        self.accounts = accounts
    }

    public func run() async throws {
        await JobLoop(wake: wake, pollInterval: pollInterval, logger: logger, failure: "e-card round failed").run {
            try await runOnce() > 0
        }
    }

    /// Claims and runs one due attempt; returns how many it claimed (0 or 1).
    @discardableResult
    public func runOnce() async throws -> Int {
        try await JobLoop.claimOne(store.queue, kind: store.renderKind, lease: lease, render)
    }

    func render(_ attempt: Job) async throws {
        try await RenderAttempt<ECardStore.Pending>(
            queue: store.queue, idKey: "ecardId", what: "e-card", logger: logger
        )
        .run(attempt, load: store.pending) { card in
            let sender = try await senderName(of: card)
            let content = try await content(of: card, sender: sender)
            let image = try await images.pool.run { [dpi] in ECardImage.render(content, dpi: dpi) }
            guard !image.jpeg.isEmpty else { throw ServiceError(.internal, "the JPEG encoder gave no bytes") }
            try await store.markReady(card, image: image, senderName: sender)
        } failed: { id, reason in
            try await store.markFailed(id, reason: reason)
        }
    }

    /// How the card is signed: the order's `senderName`, else the account's display name or
    /// username (asked of auth; a failed lookup fails the attempt, which is retried).
    func senderName(of card: ECardStore.Pending) async throws -> String {
        if let name = card.ecard.senderName?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty {
            return name
        }
        return try await accounts.accountName(of: card.userId) ?? "a friend"
    }

    /// The card: the order's image (read as the buyer, so only their uploads and gallery images)
    /// with its edits, the greeting signed by the sender on the back; no address and no stamp.
    func content(of card: ECardStore.Pending, sender: String) async throws -> PostcardContent {
        let size = CardSize(rawValue: (card.ecard.size ?? "A6").uppercased()) ?? .a6
        let greeting = card.ecard.greeting.map { $0 + "\n\n" } ?? ""
        let edits = try PostcardEdit.list(card.ecard.edits, field: "ecard.edits")
        var content = PostcardContent(size: size, greeting: greeting + "— \(sender)", edits: edits)
        if let imageId = card.ecard.imageId {
            let (pixels, orientation) = try await images.pixels(
                imageId, actor: Actor(userId: card.userId, roles: [Role.user])
            ) { image in
                PostcardContent.decodeScale(
                    width: image.width, height: image.height, size: size, edits: edits, dpi: dpi)
            }
            content.image = pixels
            content.orientation = orientation
        }
        return content
    }
}
