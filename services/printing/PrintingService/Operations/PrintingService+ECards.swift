import AuthContract
import Contract
import Foundation
import PrintingContract
import ServiceKit
import Store

extension PrintingService {
    /// The e-card renderer of a printing process and the continuation that wakes it.
    static func ecardRenderer(
        _ resources: WorkerResources, queue: JobQueue, images: ImageLibrary, publisher: EventPublisher
    ) throws -> (renderer: ECardRenderer, nudge: AsyncStream<Void>.Continuation) {
        let environment = resources.environment
        var book = ECardBook(
            client: resources.postgres, queue: queue, events: resources.events,
            publicBaseURL: try environment.required(ecardPublicURL), logger: resources.logger,
            announce: publisher.announce)
        book.renderAttempts = try environment.int(renderAttempts, in: 1...100)
        let bus = resources.bus
        let (wake, nudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var renderer = ECardRenderer(book: book, images: images, wake: wake, logger: resources.logger) { userId in
            let reply = try await bus.call(
                Auth.LookupContacts.self, .init(userIds: [userId]),
                metadata: RequestMetadata(requestId: "printing-\(UUID().uuidString.lowercased())", actor: nil))
            return reply.contacts.first.map { $0.displayName ?? $0.username }
        }
        renderer.dpi = Double(try environment.int(ecardDPI, in: 50...300))
        renderer.pollInterval = .milliseconds(try environment.int(renderPoll, in: 5...60_000))
        renderer.lease = Double(try environment.int(renderLease, in: 1_000...3_600_000)) / 1_000
        return (renderer, nudge)
    }

    /// Registers the gallery's operations and the e-card image lookup.
    public static func register(gallery: Gallery, ecards: ECardBook, on router: inout OperationRouter) {
        router.register(Printing.AddGalleryImage.self) { request, context in
            try await gallery.add(request, actor: try context.requireRole(.admin))
        }
        router.register(Printing.ListGallery.self) { request, context in
            _ = try context.requireActor()
            return try await gallery.list(request)
        }
        router.register(Printing.RemoveGalleryImage.self) { request, context in
            _ = try context.requireRole(.admin)
            try await gallery.remove(request.id)
            return Empty()
        }
        router.register(Printing.ECardImage.self) { request, _ in try await ecards.image(token: request.token) }
    }
}
