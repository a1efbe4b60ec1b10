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
