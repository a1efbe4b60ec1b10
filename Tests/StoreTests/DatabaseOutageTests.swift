import Contract
import Foundation
import PostgresNIO
import ServiceKit
import Store
import Testing

/// When PostgreSQL goes away mid-request, callers hear `unavailable` (try again), not `internal`.
@Suite("A lost database connection is `unavailable`, not `internal`")
struct DatabaseOutageTests {
    enum Terminated: BusOperation {
        typealias Request = Empty
        typealias Reply = Empty
        static let name = "terminated"
    }

    enum Broken: BusOperation {
        typealias Request = Empty
        typealias Reply = Empty
        static let name = "broken"
    }

    /// Runs `sql` and reads every row.
    static func run(_ sql: PostgresQuery, on client: PostgresClient) async throws {
        for try await _ in try await client.query(sql, logger: TestDatabase.logger) {}
    }

    @Test("a handler whose connection the server ends answers `unavailable`; a wrong query stays `internal`")
    func terminatedConnection() async throws {
        try await TestDatabase.withClient { client in
            var router = OperationRouter(service: ServiceName("outage"), logger: TestDatabase.logger)
            router.register(Terminated.self) { _, _ in
                // The server ends this connection, as it ends every one when PostgreSQL stops.
                try await Self.run("SELECT pg_terminate_backend(pg_backend_pid())", on: client)
                return Empty()
            }
            router.register(Broken.self) { _, _ in
                try await Self.run("SELECT * FROM no_such_table_anywhere", on: client)
                return Empty()
            }
            let metadata = RequestMetadata(requestId: "outage-test")
            // A wrong query first, while every connection is sound: a bug is not an outage.
            let broken = await router.handle(
                try Wire.encodeRequest(operation: Broken.name, metadata: metadata, payload: Empty()))
            #expect(
                String(decoding: broken[0], as: UTF8.self) == "internal",
                "\(String(decoding: broken[1], as: UTF8.self))")
            let terminated = await router.handle(
                try Wire.encodeRequest(operation: Terminated.name, metadata: metadata, payload: Empty()))
            #expect(String(decoding: terminated[0], as: UTF8.self) == "unavailable")
            #expect(String(decoding: terminated[1], as: UTF8.self).contains("database is not reachable"))
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
