import Foundation

/// The operator's view of a service's job tables, which every worker service answers (like
/// ``Health``) for the `admin` role: queue depths, and dead letters to inspect, retry or discard.
/// The gateway asks each service and merges the replies (`/v1/admin/queues`,
/// `/v1/admin/dead-letters`).
public enum JobAdministration {
    /// `job_queues`: the depth of each job table of the service.
    public enum Queues: BusOperation {
        public typealias Request = Empty
        public typealias Reply = QueueList
        public static let name = "job_queues"
    }

    /// `dead_letters`: the service's dead letters, most recently dead first.
    public enum DeadLetters: BusOperation {
        public typealias Request = DeadLetterQuery
        public typealias Reply = DeadLetterList
        public static let name = "dead_letters"
    }

    /// `retry_dead_letter`: queue a dead letter again, with a full set of attempts; `not_found`
    /// when no job of that id is dead in any of the service's job tables.
    public enum Retry: BusOperation {
        public typealias Request = DeadLetterRef
        public typealias Reply = DeadLetter
        public static let name = "retry_dead_letter"
    }

    /// `discard_dead_letter`: delete a dead letter for good; `not_found` as for ``Retry``.
    public enum Discard: BusOperation {
        public typealias Request = DeadLetterRef
        public typealias Reply = Empty
        public static let name = "discard_dead_letter"
    }

    /// One job table's figures.
    public struct QueueFigures: Codable, Hashable, Sendable {
        /// The table's name, e.g. `jobs` or `deliveries`.
        public var queue: String
        /// Jobs waiting (due now or later).
        public var queued: Int
        /// Jobs a worker holds.
        public var running: Int
        /// Dead letters.
        public var dead: Int
        /// How long the oldest due job has waited, in whole seconds (0 when none is due).
        public var oldestDueAgeSeconds: Int64

        public init(queue: String, queued: Int, running: Int, dead: Int, oldestDueAgeSeconds: Int64) {
            self.queue = queue
            self.queued = queued
            self.running = running
            self.dead = dead
            self.oldestDueAgeSeconds = oldestDueAgeSeconds
        }
    }

    /// A service's job tables.
    public struct QueueList: Codable, Hashable, Sendable {
        public var service: String
        public var queues: [QueueFigures]

        public init(service: String, queues: [QueueFigures]) {
            self.service = service
            self.queues = queues
        }
    }

    /// Which dead letters to list.
    public struct DeadLetterQuery: Codable, Hashable, Sendable {
        /// How many at most (1...500; default 100), over all the service's tables.
        public var limit: Int?

        public init(limit: Int? = nil) { self.limit = limit }
    }

    /// One dead letter, as an operator sees it.
    public struct DeadLetter: Codable, Hashable, Sendable {
        /// The service that owns it.
        public var service: String
        /// Its job table.
        public var queue: String
        /// The job's id (a UUID in lower case).
        public var id: String
        /// What it was to do, e.g. `render_postcard`.
        public var kind: String
        /// `dead`, or `queued` after a retry.
        public var state: String
        public var attempts: Int
        public var maxAttempts: Int
        /// The last attempt's error.
        public var lastError: String?
        /// Why it was dead-lettered.
        public var deadReason: String?
        /// The job's input, with the values of members whose names say secret (token, password,
        /// secret, key, card) replaced by `"[redacted]"`.
        public var payload: JSONValue
        public var createdAt: Date
        public var updatedAt: Date

        public init(
            service: String, queue: String, id: String, kind: String, state: String, attempts: Int, maxAttempts: Int,
            lastError: String?, deadReason: String?, payload: JSONValue, createdAt: Date, updatedAt: Date
        ) {
            self.service = service
            self.queue = queue
            self.id = id
            self.kind = kind
            self.state = state
            self.attempts = attempts
            self.maxAttempts = maxAttempts
            self.lastError = lastError
            self.deadReason = deadReason
            self.payload = payload
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    /// A service's dead letters.
    public struct DeadLetterList: Codable, Hashable, Sendable {
        public var service: String
        public var items: [DeadLetter]

        public init(service: String, items: [DeadLetter]) {
            self.service = service
            self.items = items
        }
    }

    /// One dead letter by id (the service looks in each of its job tables).
    public struct DeadLetterRef: Codable, Hashable, Sendable {
        public var id: UUID

        public init(id: UUID) { self.id = id }
    }
}
