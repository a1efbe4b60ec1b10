import Logging
import PostgresNIO

extension PostgresClient {
    /// `withTransaction`, except that an error thrown by `body` (after a clean rollback) comes out
    /// as it is, so a `ServiceError` keeps its code; the services' one way into a transaction.
    public func transaction<T: Sendable>(
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
