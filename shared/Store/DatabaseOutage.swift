import PostgresNIO

/// Errors that say the database went away rather than that the request was wrong: the connection
/// was lost or refused, or the server is shutting down, crashed or still starting. They pass once
/// PostgreSQL is back, so callers are told `unavailable` (retry later), not `internal`.
public enum DatabaseOutage {
    /// SQLSTATEs of that kind: class 08 (connection exception), 57P01 admin shutdown, 57P02 crash
    /// shutdown, 57P03 cannot connect now, 53300 too many connections.
    static let serverStates: Set<String> = ["57P01", "57P02", "57P03", "53300"]

    /// Whether `error` (also inside a transaction error) is such an outage.
    public static func matches(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            let parts: [any Error] = [
                transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError,
            ].compactMap { $0 }
            return parts.contains { matches($0) }
        }
        if let store = error as? StoreError { return store.code == .connectionLost }
        guard let psql = error as? PSQLError else { return false }
        switch psql.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return true
        case .server:
            guard let state = psql.serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || serverStates.contains(state)
        default:
            return false
        }
    }
}
