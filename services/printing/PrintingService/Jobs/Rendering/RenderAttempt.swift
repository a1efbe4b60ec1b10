import Contract
import Foundation
import Logging
import Store

/// One claimed render attempt, the part print jobs and e-cards share: the attempt's payload
/// names the item by `idKey`; an item no longer waiting completes the attempt; a failure is
/// logged and retried by the queue, and once the queue gives up (`dead`) the item is failed with
/// "rendering failed: <reason>".
struct RenderAttempt<Item: Sendable> {
    let queue: JobQueue
    /// The payload key of the item's id (`jobId`, `ecardId`).
    let idKey: String
    /// What is rendered, for the log (`print job`, `e-card`).
    let what: String
    let logger: Logger

    func run(
        _ attempt: Job, load: (UUID) async throws -> Item?, render: (Item) async throws -> Void,
        failed: (UUID, String) async throws -> Void
    ) async throws {
        let payload = try Wire.makeDecoder().decode([String: String].self, from: attempt.payload)
        guard let id = payload[idKey].flatMap(UUID.init(uuidString:)) else {
            try await queue.fail(attempt, reason: "render attempt without \(idKey)", permanent: true)
            return
        }
        guard let item = try await load(id) else {
            try await queue.complete(attempt)
            return
        }
        do {
            try await render(item)
            try await queue.complete(attempt)
        } catch {
            let reason = Self.reason(error)
            logger.warning(
                "\(what) render failed",
                metadata: [idKey: "\(id)", "attempt": "\(attempt.attempts)", "error": "\(reason)"])
            if case .dead(let final) = try await queue.fail(attempt, reason: reason) {
                try await failed(id, "rendering failed: \(final)")
            }
        }
    }

    /// A reason a person can read: a ``ServiceError``'s message, or the error's description.
    static func reason(_ error: any Error) -> String {
        if let error = error as? ServiceError { return error.message }
        return String(describing: error)
    }
}
