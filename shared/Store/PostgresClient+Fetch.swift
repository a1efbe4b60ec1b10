import Logging
import PostgresNIO

/// The rows of one query, read whole before its connection went back to the pool
/// (``PostgresClient/fetch(_:logger:file:line:)``). It reads as PostgresNIO's row sequence does:
/// `for try await row in rows`, `rows.decode((A, B).self)`, `rows.collect()`.
public struct FetchedRows: AsyncSequence, Sendable {
    public typealias Element = PostgresRow

    /// Every row the server sent, in its order.
    public let rows: [PostgresRow]

    public init(rows: [PostgresRow]) {
        self.rows = rows
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[PostgresRow]>

        public mutating func next() async throws -> PostgresRow? {
            base.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: rows.makeIterator())
    }

    /// The rows as an array (they are read already; kept `async throws` to read as the stream's).
    public func collect() async throws -> [PostgresRow] {
        rows
    }
}

extension PostgresClient {
    /// Runs `query` outside any transaction on a pooled connection and reads its rows. The
    /// services' one way to send a lone query. Inside ``transaction(logger:isolation:_:)`` or
    /// `withConnection`, ``PostgresConnection/fetch(_:logger:file:line:)`` sends each query the
    /// same way.
    ///
    /// PostgresNIO's `query` writes into the connection the pool lends without a promise for the
    /// write, so when the pool lends a connection that has just closed (PostgreSQL restarted or
    /// killed, a backend terminated) and has not yet heard of it, the query is dropped and its
    /// caller waits for good. Here the query is sent from the connection's own event loop right
    /// after a check there that it is open (``PostgresConnection/sendingOnlyIfOpen(_:)``), so it is
    /// never written into a closed channel: a connection that is closed when lent gives the caller
    /// ``StoreError/Code/connectionLost`` at once, an outage (``DatabaseOutage``), so handlers
    /// answer `unavailable` and jobs retry. The rows are read before the connection goes
    /// back, as PostgresNIO's own `query` holds its lease until its rows are read.
    @discardableResult
    public func fetch(
        _ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> FetchedRows {
        try await withConnection { try await $0.fetch(query, logger: logger, file: file, line: line) }
    }

    /// A prepared statement, sent as ``fetch(_:logger:file:line:)`` sends a query (never into a
    /// closed connection), its rows decoded and read whole.
    @discardableResult
    public func fetch<Statement: PostgresPreparedStatement, Row>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> [Row] where Row == Statement.Row, Row: Sendable {
        try await withConnection { try await $0.fetch(statement, logger: logger, file: file, line: line) }
    }
}

extension PostgresConnection {
    /// Sends `query` on this connection (inside a transaction or `withConnection`) and reads its
    /// rows, as ``PostgresClient/fetch(_:logger:file:line:)`` does: from the connection's event
    /// loop right after a check there that it is open, so a connection that closed since the last
    /// query gives ``StoreError/Code/connectionLost`` at once instead of a query that is never
    /// answered.
    @discardableResult
    public func fetch(
        _ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> FetchedRows {
        try await sendingOnlyIfOpen { connection in
            FetchedRows(rows: try await connection.query(query, logger: logger, file: file, line: line).collect())
        }
    }

    /// A prepared statement, sent as ``fetch(_:logger:file:line:)`` sends a query, its rows decoded
    /// and read whole.
    @discardableResult
    public func fetch<Statement: PostgresPreparedStatement, Row>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> [Row] where Row == Statement.Row, Row: Sendable {
        try await sendingOnlyIfOpen { connection in
            var rows: [Row] = []
            for try await row in try await connection.execute(statement, logger: logger, file: file, line: line) {
                rows.append(row)
            }
            return rows
        }
    }
}
