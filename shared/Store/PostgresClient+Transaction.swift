import Logging
import PostgresNIO
import Telemetry
import Tracing

extension PostgresClient {
    /// `withTransaction`, except that an error thrown by `body` (after a clean rollback) comes out
    /// as it is, so a `ServiceError` keeps its code; the services' one way into a transaction.
    /// With tracing on, the transaction is a span (`sql transaction`) of the task's trace.
    public func transaction<T: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> T {
        guard let span = Traces.startSpan("sql transaction", kind: .client) else {
            return try await untracedTransaction(logger: logger, body)
        }
        span.attributes["db.system"] = "postgresql"
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) {
                try await untracedTransaction(logger: logger, body)
            }
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    private func untracedTransaction<T: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> T {
        do {
            return try await withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError, error.rollbackError == nil { throw inner }
            throw error
        }
    }
}
