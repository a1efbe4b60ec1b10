import Logging
import PostgresNIO
import Store
import TestSupport
import Testing

/// A query outside any transaction whose pooled connection the server has just ended must fail at
/// once, as an outage, or be answered: never wait for good.
///
/// PostgresNIO's `PostgresClient.query` writes into the connection the pool lends without a
/// promise for the write. A query that ends its own connection fails, its connection goes back to
/// the pool, and the pool may lend it again before it hears that it closed: the next query was
/// written into a channel with no handler left and its caller waited forever. `fetch` does not
/// write into a connection that is closed when lent.
@Suite("A lone query on a connection the server has just ended")
struct LoneQueryOutageTests {
    /// Ends the connection it runs on, as a crash of the server would.
    static let endOwnConnection: PostgresQuery = "SELECT pg_terminate_backend(pg_backend_pid())"

    @Test("fails at once as an outage or is answered, and the pool serves again", arguments: [1, 2])
    func endedConnection(connections: Int) async throws {
        try TestLayers.requireDatabase()
        try await PostgresFixture.withClient(maximumConnections: connections, logger: TestDatabase.logger) { client in
            var outages = 0
            for round in 1...40 {
                await #expect(throws: (any Error).self) {
                    try await client.fetch(Self.endOwnConnection, logger: TestDatabase.logger)
                }
                // At once, on the connection the pool may still think open.
                let answer = try await Bounded.within(.seconds(20), "a query after an ended connection (round \(round))") {
                    do {
                        return try await Self.fortyTwo(client)
                    } catch where DatabaseOutage.matches(error) {
                        return -1
                    }
                }
                if answer == -1 { outages += 1 } else { #expect(answer == 42) }
                let after = try await Bounded.within(.seconds(20), "a query once the pool has heard (round \(round))") {
                    try await TransactionOutageTests.retryingOutages { try await Self.fortyTwo(client) }
                }
                #expect(after == 42)
            }
            print("lone queries on an ended connection, \(connections) connection(s): \(outages) of 40 failed as outages")
        }
    }

    @Test("a prepared statement is read whole, its rows in order")
    func preparedStatement() async throws {
        try TestLayers.requireDatabase()
        struct Series: PostgresPreparedStatement {
            static let sql = "SELECT n FROM generate_series(1, $1) AS n"
            typealias Row = Int
            let upTo: Int
            func makeBindings() throws -> PostgresBindings {
                var bindings = PostgresBindings()
                bindings.append(upTo)
                return bindings
            }
            func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int.self) }
        }
        try await PostgresFixture.withClient(maximumConnections: 1, logger: TestDatabase.logger) { client in
            let rows = try await client.fetch(Series(upTo: 1000), logger: TestDatabase.logger)
            #expect(rows == Array(1...1000))
            let fetched = try await client.fetch("SELECT n, n * 2 FROM generate_series(1, 3) AS n", logger: TestDatabase.logger)
            var pairs: [[Int]] = []
            for try await (n, twice) in fetched.decode((Int, Int).self) { pairs.append([n, twice]) }
            #expect(pairs == [[1, 2], [2, 4], [3, 6]])
            #expect(try await fetched.collect().count == 3)
        }
    }

    static func fortyTwo(_ client: PostgresClient) async throws -> Int {
        let rows = try await client.fetch("SELECT 41 + 1", logger: TestDatabase.logger)
        for try await value in rows.decode(Int.self) { return value }
        return 0
    }
}
