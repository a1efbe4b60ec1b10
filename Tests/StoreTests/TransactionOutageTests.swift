import Logging
import PostgresNIO
import Store
import TestSupport
import Testing

/// A transaction whose connection the server ends (PostgreSQL killed, restarted, or the backend
/// terminated) must fail at once, as an outage, and leave the pool serving.
///
/// PostgresNIO's own `withTransaction` answers a failed body with a `ROLLBACK` on the same
/// connection. Once that connection is closed, the query is written into a channel with no
/// handler left and is never answered: the caller waited forever (seen in the fault run, where a
/// civic import hung for good after PostgreSQL was SIGKILLed). ``PostgresClient/transaction``
/// sends no `ROLLBACK` on a connection that is gone; the server has dropped its transaction
/// already.
@Suite("A transaction on a connection the server ends")
struct TransactionOutageTests {
    /// Ends the connection it runs on, as a crash of the server would.
    static let endOwnConnection: PostgresQuery = "SELECT pg_terminate_backend(pg_backend_pid())"

    /// 42, read inside a transaction.
    static func fortyTwo(_ client: PostgresClient) async throws -> Int {
        try await client.transaction(logger: TestDatabase.logger) { connection in
            let rows = try await connection.query("SELECT 41 + 1", logger: TestDatabase.logger)
            for try await value in rows.decode(Int.self) { return value }
            return 0
        }
    }

    /// `body`, tried again (every 50 ms, up to ten times) while it fails as an outage: the pool may
    /// lend an ended connection again until it hears that it closed.
    static func retryingOutages<T>(_ body: () async throws -> T) async throws -> T {
        var tries = 0
        while true {
            tries += 1
            do {
                return try await body()
            } catch where DatabaseOutage.matches(error) && tries < 10 {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Runs `body` in a transaction on `client`: it must fail within 20 s as an outage, and a
    /// transaction after it must commit (tried again while the pool still lends the lost connection).
    static func expectOutageThenRecovery(
        _ client: PostgresClient, _ what: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws {
        let error = try await Bounded.within(.seconds(20), "a transaction whose connection \(what)") {
            do {
                try await client.transaction(logger: TestDatabase.logger) { try await body($0) }
            } catch {
                return error
            }
            throw TestFailure("the transaction did not fail")
        }
        #expect(DatabaseOutage.matches(error), "\(String(reflecting: error))")
        let value = try await Bounded.within(.seconds(20), "a transaction after the connection \(what)") {
            try await Self.retryingOutages { try await Self.fortyTwo(client) }
        }
        #expect(value == 42)
    }

    @Test("fails at once as an outage, and the next transaction commits")
    func endedConnection() async throws {
        try TestLayers.requireDatabase()
        try await TestDatabase.withClient { client in
            for round in 1...3 {
                try await Self.expectOutageThenRecovery(client, "ended (round \(round))") { connection in
                    try await connection.query("SELECT 1", logger: TestDatabase.logger)
                    try await connection.query(Self.endOwnConnection, logger: TestDatabase.logger)
                }
            }
        }
    }

    @Test("a connection that closes between two of the body's queries: the second is not sent, and fails at once")
    func closedBetweenQueries() async throws {
        try TestLayers.requireDatabase()
        try await TestDatabase.withClient { client in
            for round in 1...3 {
                try await Self.expectOutageThenRecovery(client, "closed between two queries (round \(round))") { connection in
                    let rows = try await connection.fetch("SELECT pg_backend_pid()", logger: TestDatabase.logger)
                    var pid: Int32 = 0
                    for try await value in rows.decode(Int32.self) { pid = value }
                    // Another connection ends this one, as a crash of the server would, while the body
                    // is between queries; the body goes on only once the connection knows it closed.
                    try await client.fetch("SELECT pg_terminate_backend(\(pid))", logger: TestDatabase.logger)
                    let deadline = ContinuousClock.now + .seconds(10)
                    while !connection.isClosed && ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    #expect(connection.isClosed)
                    // PostgresNIO's own `query` would be written into the closed channel and never answered.
                    try await connection.fetch("SELECT 1", logger: TestDatabase.logger)
                }
            }
        }
    }

    @Test("a connection cut mid-transaction (no word from the server) fails the transaction at once")
    func cutConnection() async throws {
        try TestLayers.requireDatabase()
        var settings = try DatabaseSettings.fromEnvironment()
        let proxy = try await CuttableProxy.start(to: settings.host, port: settings.port)
        settings.port = proxy.port
        var configuration = settings.clientConfiguration()
        configuration.options.maximumConnections = 2
        let client = PostgresClient(configuration: configuration, backgroundLogger: TestDatabase.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            for round in 1...3 {
                try await Self.expectOutageThenRecovery(client, "was cut (round \(round))") { connection in
                    try await connection.query("SELECT 1", logger: TestDatabase.logger)
                    let cut = Task {
                        try? await Task.sleep(for: .milliseconds(200))
                        await proxy.cutAll()
                    }
                    defer { cut.cancel() }
                    try await connection.query("SELECT pg_sleep(10)", logger: TestDatabase.logger)
                }
            }
        }
        await proxy.stop()
    }

    @Test("a body that fails on a live connection is rolled back, and its error comes out as it is")
    func rolledBack() async throws {
        try TestLayers.requireDatabase()
        struct Refused: Error {}
        try await TestDatabase.withSchema("txrollback") { client, schema in
            try await client.query("CREATE SCHEMA \(unescaped: schema)", logger: TestDatabase.logger)
            try await client.query("CREATE TABLE \(unescaped: schema).t (n int)", logger: TestDatabase.logger)
            await #expect(throws: Refused.self) {
                try await client.transaction(logger: TestDatabase.logger) { connection in
                    try await connection.query("INSERT INTO \(unescaped: schema).t VALUES (1)", logger: TestDatabase.logger)
                    throw Refused()
                }
            }
            // A wrong query inside: the transaction is aborted, rolled back, and the server's error
            // comes out (not wrapped).
            await #expect(throws: PSQLError.self) {
                try await client.transaction(logger: TestDatabase.logger) { connection in
                    try await connection.query("INSERT INTO \(unescaped: schema).t VALUES (2)", logger: TestDatabase.logger)
                    try await connection.query("SELECT * FROM \(unescaped: schema).no_such_table", logger: TestDatabase.logger)
                }
            }
            #expect(try await TestDatabase.scalar("SELECT count(*)::int FROM \(unescaped: schema).t", on: client) == 0)
            // No connection went back to the pool inside a transaction: SAVEPOINT is refused
            // outside one (25P01) on every connection the pool lends.
            for _ in 1...8 {
                do {
                    try await client.query("SAVEPOINT probe", logger: TestDatabase.logger)
                    Issue.record("a pooled connection was still inside a transaction")
                } catch let error as PSQLError {
                    #expect(error.serverInfo?[.sqlState] == "25P01", "\(String(reflecting: error))")
                }
            }
        }
    }
}
