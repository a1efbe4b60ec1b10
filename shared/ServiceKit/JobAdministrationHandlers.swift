import Contract
import Foundation
import Logging
import Store

/// The ``JobAdministration`` operations every worker answers for the `admin` role, over the job
/// tables of its schema (found as ``JobQueue/tables(in:client:logger:)`` finds them, so a table a
/// service adds later is covered without a line here).
public enum JobAdministrationHandlers {
    /// Registers the four operations on `router` for the job tables of schema `schema`.
    public static func register(
        on router: inout OperationRouter, database: Database, schema: String, clock: any WallClock
    ) {
        let queues = { @Sendable () async throws -> [(table: String, queue: JobQueue)] in
            try await database.jobQueues(schema: schema, clock: clock)
        }
        router.register(JobAdministration.Queues.self) { _, context in
            _ = try context.requireRole(.admin)
            let now = clock.now()
            var figures: [JobAdministration.QueueFigures] = []
            for (table, queue) in try await queues() {
                let depth = try await queue.depth()
                figures.append(
                    .init(
                        queue: table, queued: depth.queued, running: depth.running, dead: depth.dead,
                        oldestDueAgeSeconds: depth.oldestDue.map { max(0, Int64(now.timeIntervalSince($0))) } ?? 0))
            }
            return .init(service: schema, queues: figures)
        }
        router.register(JobAdministration.DeadLetters.self) { request, context in
            _ = try context.requireRole(.admin)
            let limit = request.limit ?? 100
            guard (1...500).contains(limit) else {
                throw ServiceError.invalidArgument("limit must be 1 to 500", field: "limit")
            }
            var letters: [JobAdministration.DeadLetter] = []
            for (table, queue) in try await queues() {
                letters += try await queue.deadLetters(limit: limit).map { deadLetter($0, service: schema, queue: table) }
            }
            letters.sort { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
            return .init(service: schema, items: Array(letters.prefix(limit)))
        }
        router.register(JobAdministration.Retry.self) { request, context in
            let actor = try context.requireRole(.admin)
            for (table, queue) in try await queues() {
                if let job = try await queue.retryDead(id: request.id) {
                    context.logger.notice(
                        "dead letter retried by an operator",
                        metadata: ["jobId": "\(job.id)", "queue": "\(table)", "operator": "\(actor.userId)"])
                    return deadLetter(job, service: schema, queue: table)
                }
            }
            throw ServiceError(.notFound, "no dead letter \(request.id) in \(schema)")
        }
        router.register(JobAdministration.Discard.self) { request, context in
            let actor = try context.requireRole(.admin)
            for (table, queue) in try await queues() {
                guard try await queue.discardDead(id: request.id) else { continue }
                context.logger.notice(
                    "dead letter discarded by an operator",
                    metadata: ["jobId": "\(request.id)", "queue": "\(table)", "operator": "\(actor.userId)"])
                return Empty()
            }
            throw ServiceError(.notFound, "no dead letter \(request.id) in \(schema)")
        }
    }

    static func deadLetter(_ job: Job, service: String, queue: String) -> JobAdministration.DeadLetter {
        let payload = (try? JSONDecoder().decode(JSONValue.self, from: job.payload)).map(redacted) ?? .null
        return .init(
            service: service, queue: queue, id: job.id.uuidString.lowercased(), kind: job.kind, state: job.state.rawValue,
            attempts: job.attempts, maxAttempts: job.maxAttempts, lastError: job.lastError,
            deadReason: job.deadReason, payload: payload, createdAt: job.createdAt, updatedAt: job.updatedAt)
    }

    /// Words that mark a member as secret: its value is not shown to an operator.
    static let secretWords = ["token", "password", "secret", "key", "card", "authorization"]

    /// `value` with the value of every member whose name contains one of ``secretWords``
    /// (case-insensitively) replaced by `"[redacted]"`, at any depth.
    static func redacted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for (name, member) in members {
                let lower = name.lowercased()
                out[name] = secretWords.contains(where: { lower.contains($0) }) ? .string("[redacted]") : redacted(member)
            }
            return .object(out)
        case .array(let items): return .array(items.map(redacted))
        default: return value
        }
    }
}
