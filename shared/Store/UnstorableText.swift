import PostgresNIO

/// Errors that say a value cannot be stored as PostgreSQL text: a NUL character (U+0000), or a
/// character the database's encoding lacks. That is the caller's input, so callers are told
/// `invalid_argument` (400), not `internal`.
public enum UnstorableText {
    /// SQLSTATEs of that kind: 22021 character not in repertoire (how PostgreSQL refuses 0x00 in
    /// UTF-8 text), 22P05 untranslatable character.
    static let serverStates: Set<String> = ["22021", "22P05"]

    /// Whether `error` (also inside a transaction error) is such a refusal.
    public static func matches(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            let parts: [any Error] = [
                transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError,
            ].compactMap { $0 }
            return parts.contains { matches($0) }
        }
        guard let psql = error as? PSQLError, psql.code == .server, let state = psql.serverInfo?[.sqlState] else {
            return false
        }
        return serverStates.contains(state)
    }
}
