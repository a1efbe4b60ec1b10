import Logging
import PostgresNIO
import Telemetry
import Tracing

extension PostgresClient {
    /// Runs `body` in a transaction on a pooled connection: `BEGIN`, then `COMMIT` when `body`
    /// returns, `ROLLBACK` when it throws; an error thrown by `body` comes out as it is, so a
    /// `ServiceError` keeps its code. The services' one way into a transaction.
    ///
    /// It is PostgresNIO's `withTransaction` except where a connection closes under it, where
    /// that one hangs. PostgresNIO writes a query into its connection's channel without a promise
    /// for the write (vapor/postgres-nio#487, reverted in #501); once the channel is closed and its
    /// handlers are gone, the query is dropped and its caller waits forever. `withTransaction`
    /// sends its `ROLLBACK` on the connection whose failure it is answering, and the pool may lend
    /// a connection that has just closed, so each PostgreSQL crash or restart left a few callers
    /// waiting for good (a civic import held its job for the whole lease). Here:
    /// - a connection that is closed when lent, or by the time the body returns, is not written
    ///   to: the caller gets a ``StoreError/Code/connectionLost`` error at once (an outage,
    ///   ``DatabaseOutage``, so callers answer `unavailable` and jobs retry). `BEGIN`, `COMMIT` and
    ///   `ROLLBACK`, like the body's own queries (``PostgresConnection/fetch(_:logger:file:line:)``),
    ///   are sent from the connection's event loop right after a check there, so no close slips
    ///   in between (``PostgresConnection/sendingOnlyIfOpen(_:)``);
    /// - a body that failed because the connection went away is not followed by a `ROLLBACK`:
    ///   the server dropped the transaction with the connection;
    /// - a connection whose `ROLLBACK` fails is closed, never handed back inside a transaction.
    ///
    /// With tracing on, the transaction is a span (`sql transaction`) of the task's trace; a
    /// transaction outside any trace (an event consumer recording an event as handled, a
    /// scheduler's round) starts none, rather than a trace of one span each time.
    public func transaction<T: Sendable>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> T {
        guard Traces.inTrace,
            let span = Traces.startSpan("sql transaction", kind: .client)
        else {
            return try await withConnection(isolation: isolation) {
                try await $0.transaction(logger: logger, isolation: isolation, body)
            }
        }
        span.attributes["db.system"] = "postgresql"
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) {
                try await withConnection(isolation: isolation) {
                    try await $0.transaction(logger: logger, isolation: isolation, body)
                }
            }
        } catch {
            Traces.failed(span, by: error)
            throw error
        }
    }
}

extension PostgresConnection {
    /// Runs `body` in a transaction on this connection (see ``PostgresClient/transaction(logger:_:)``).
    public func transaction<T: Sendable>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> T {
        try await fetch("BEGIN", logger: logger)
        let value: T
        do {
            value = try await body(self)
        } catch {
            if isClosed || DatabaseOutage.matches(error) { throw error }
            do {
                try await fetch("ROLLBACK", logger: logger)
            } catch let rollbackError {
                logger.warning(
                    "rollback failed; closing the connection",
                    metadata: ["error": "\(PostgresErrorText.summary(rollbackError))"])
                try? await close()
            }
            throw error
        }
        try await fetch("COMMIT", logger: logger)
        return value
    }

    /// Throws ``StoreError/Code/connectionLost`` when the connection is closed, so that nothing is
    /// written to it (a query written to a closed connection is never answered).
    func requireOpen() throws {
        guard isClosed else { return }
        throw StoreError(
            .connectionLost, "the connection to PostgreSQL (connection \(id)) closed; nothing of this transaction was committed")
    }
}
