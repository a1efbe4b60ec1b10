import Contract
import Foundation
import PostgresNIO
import ServiceKit
import Store
import Testing

/// When PostgreSQL goes away mid-request, callers hear `unavailable` (try again), not `internal`.
@Suite("A lost database connection is `unavailable`, not `internal`")
struct DatabaseOutageTests {
    /// Runs the SQL it is sent: the test's only operation.
    enum RunSQL: BusOperation {
        struct Request: Codable, Sendable { let sql: String }
        typealias Reply = Empty
        static let name = "run_sql"
    }

    /// Runs `sql` and reads every row.
    static func run(_ sql: PostgresQuery, on client: PostgresClient) async throws {
        for try await _ in try await client.query(sql, logger: TestDatabase.logger) {}
    }

    @Test("a handler whose connection the server ends answers `unavailable`; a wrong query stays `internal`")
    func terminatedConnection() async throws {
        try await TestDatabase.withClient { client in
            let metadata = RequestMetadata(requestId: "outage-test")
            var router = OperationRouter(service: ServiceName("outage"), logger: TestDatabase.logger)
            router.register(RunSQL.self) { request, _ in
                try await Self.run(PostgresQuery(unsafeSQL: request.sql), on: client)
                return Empty()
            }
            func call(_ sql: String) async throws -> (code: String, message: String) {
                let reply = await router.handle(
                    try Wire.encodeRequest(
                        operation: RunSQL.name, metadata: metadata, payload: RunSQL.Request(sql: sql)))
                return (String(decoding: reply[0], as: UTF8.self), String(decoding: reply[1], as: UTF8.self))
            }
            // A wrong query first, while every connection is sound: a bug is not an outage.
            let broken = try await call("SELECT * FROM no_such_table_anywhere")
            #expect(broken.code == "internal", "\(broken.message)")
            // The server ends this connection, as it ends every one when PostgreSQL stops.
            let terminated = try await call("SELECT pg_terminate_backend(pg_backend_pid())")
            #expect(terminated.code == "unavailable")
            #expect(terminated.message.contains("database is not reachable"))
            // The pool replaces the lost connection by itself: a query may still meet it once (and
            // that too is an outage), then queries work again.
            var recovered = false
            for _ in 0..<5 where !recovered {
                do {
                    try await Self.run("SELECT 1", on: client)
                    recovered = true
                } catch {
                    #expect(DatabaseOutage.matches(error), "\(String(reflecting: error))")
                }
            }
            #expect(recovered)
        }
    }

    @Test("only connection-level failures count as an outage")
    func classification() {
        #expect(!DatabaseOutage.matches(CancellationError()))
        #expect(!DatabaseOutage.matches(ServiceError(.internal, "x")))
    }
}
