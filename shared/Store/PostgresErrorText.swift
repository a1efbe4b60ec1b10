import PostgresNIO

/// Human-readable text for errors from PostgresNIO, whose own `description` deliberately hides
/// the server's message.
public enum PostgresErrorText {
    /// The server's SQLSTATE, message and detail for a server error (also inside a transaction
    /// error); the error's own description otherwise.
    static func describe(_ error: any Error) -> String {
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
                return describe(inner)
            }
            return "\(transaction)"
        }
        if let psql = error as? PSQLError {
            guard let info = psql.serverInfo, let message = info[.message] else {
                return "\(psql.code)"
            }
            var text = message
            if let state = info[.sqlState] { text = "[\(state)] " + text }
            if let detail = info[.detail] { text += " (\(detail))" }
            return text
        }
        return "\(error)"
    }

    /// The SQLSTATE and the server's message, without the detail (which may quote the row's
    /// values): what a log line may carry.
    public static func summary(_ error: any Error) -> String {
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
                return summary(inner)
            }
            return "PostgresTransactionError"
        }
        guard let psql = error as? PSQLError else { return "\(type(of: error))" }
        guard let info = psql.serverInfo, let message = info[.message] else { return "PSQLError \(psql.code)" }
        return info[.sqlState].map { "[\($0)] \(message)" } ?? message
    }

    /// The error the caller's closure threw inside a transaction, if that is what failed and the
    /// rollback succeeded; otherwise `error` unchanged.
    static func unwrapped(_ error: any Error) -> any Error {
        if let transaction = error as? PostgresTransactionError,
            let inner = transaction.closureError, transaction.rollbackError == nil
        {
            return inner
        }
        return error
    }
}
