import Logging
import PostgresNIO

/// One open database transaction, passed from a handler to the stores that change something in
/// it: the handler decides what belongs together, the stores hold the SQL. Code outside `Store/`
/// only hands it on; a store reads ``connection``.
public struct Transaction: Sendable {
    /// The connection the transaction runs on; only stores use it.
    public let connection: PostgresConnection
    /// The logger the transaction's queries log through.
    public let logger: Logger

    public init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }
}

/// Begins transactions for handlers and jobs that change several stores at once (an order, its
/// ledger row and its idempotency key), so they never hold the database client themselves.
/// ``run(_:)`` commits when the body returns and rolls back when it throws (see
/// ``PostgresClient/transaction(logger:isolation:_:)`` for what happens when the connection is lost).
public struct Transactions: Sendable {
    private let database: PostgresClient
    private let logger: Logger

    public init(_ database: PostgresClient, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Runs `body` in one transaction; no call to another service may happen inside it.
    public func run<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Transaction) async throws -> sending T
    ) async throws -> T {
        let logger = self.logger
        return try await database.transaction(logger: logger, isolation: isolation) { connection in
            try await body(Transaction(connection: connection, logger: logger))
        }
    }
}

extension EventLog {
    /// Appends `event` inside `transaction` (see ``append(_:on:logger:)``).
    public func append(_ event: NewEvent, in transaction: Transaction) async throws -> StoredEvent {
        try await append(event, on: transaction.connection, logger: transaction.logger)
    }

    /// Appends `events` in one statement, in order, inside `transaction`.
    public func append(_ events: [NewEvent], in transaction: Transaction) async throws -> [StoredEvent] {
        try await append(events, on: transaction.connection, logger: transaction.logger)
    }

    /// Hands `consumer` the unhandled events of `topics`, each inside the transaction that records
    /// it as handled (see ``catchUp(consumer:topics:batch:handler:)``).
    public func catchUp(
        consumer: String, topics: [String]? = nil, batch: Int = 100, logger: Logger,
        inTransaction handler: @escaping @Sendable (StoredEvent, Transaction) async throws -> Void
    ) async throws -> Int {
        try await catchUp(consumer: consumer, topics: topics, batch: batch) { event, connection in
            try await handler(event, Transaction(connection: connection, logger: logger))
        }
    }
}
