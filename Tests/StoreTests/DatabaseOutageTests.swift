import Contract
import Glibc
import Logging
import PostgresNIO
import ServiceKit
import Store
import Synchronization
import TestSupport
import Testing

/// When PostgreSQL goes away mid-request, callers hear `unavailable` (try again), not `internal`.
///
/// The errors are real ones, each from a connection of its own (never from a shared pool): the
/// server ending a connection, a port where nothing listens, and a wrong query for contrast.
/// Every wait on PostgreSQL is bounded, so a driver that never answers fails the test instead
/// of hanging the run.
@Suite("A lost database connection is `unavailable`, not `internal`")
struct DatabaseOutageTests {
    /// The error `query` throws on a fresh connection of its own, which is closed afterwards.
    static func error(of query: PostgresQuery, port: Int? = nil) async throws -> any Error {
        try TestLayers.requireDatabase()
        let settings = try DatabaseSettings.fromEnvironment()
        let configuration = PostgresConnection.Configuration(
            host: settings.host, port: port ?? settings.port, username: settings.username,
            password: settings.password, database: settings.database, tls: .disable)
        return try await Bounded.within(.seconds(20), "the query \(query.sql)") {
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(
                    configuration: configuration, id: 1, logger: TestDatabase.logger)
            } catch {
                return error
            }
            defer { Task { try? await connection.close() } }
            do {
                _ = try await connection.query(query, logger: TestDatabase.logger).collect()
            } catch {
                return error
            }
            throw TestFailure("\(query.sql) did not fail")
        }
    }

    @Test("the server ending the connection, or nothing listening, is an outage; a wrong query is not")
    func classification() async throws {
        // What every connection meets when PostgreSQL stops, crashes or restarts.
        let terminated = try await Self.error(of: "SELECT pg_terminate_backend(pg_backend_pid())")
        #expect(DatabaseOutage.matches(terminated), "\(String(reflecting: terminated))")
        // A port nobody listens on: the database is down.
        let refused = try await Self.error(of: "SELECT 1", port: try Self.closedPort())
        #expect(DatabaseOutage.matches(refused), "\(String(reflecting: refused))")
        // A bug is not an outage.
        let wrong = try await Self.error(of: "SELECT * FROM no_such_table_anywhere")
        #expect(!DatabaseOutage.matches(wrong), "\(String(reflecting: wrong))")
    }

    enum Fails: BusOperation {
        struct Request: Codable, Sendable { let which: String }
        typealias Reply = Empty
        static let name = "fails"
    }

    @Test("an operation that meets an outage answers `unavailable`; one that meets a wrong query `internal`")
    func answers() async throws {
        let errors: [String: any Error] = [
            "terminated": try await Self.error(of: "SELECT pg_terminate_backend(pg_backend_pid())"),
            "wrong": try await Self.error(of: "SELECT * FROM no_such_table_anywhere"),
        ]
        var router = OperationRouter(service: ServiceName("outage"), logger: TestDatabase.logger)
        router.register(Fails.self) { request, _ in throw errors[request.which]! }
        func answer(_ which: String) async throws -> (code: String, message: String) {
            let reply = await router.handle(
                try Wire.encodeRequest(
                    operation: Fails.name, metadata: RequestMetadata(requestId: "outage-test"),
                    payload: Fails.Request(which: which)))
            return (String(decoding: reply[0], as: UTF8.self), String(decoding: reply[1], as: UTF8.self))
        }
        let terminated = try await answer("terminated")
        #expect(terminated.code == "unavailable")
        #expect(terminated.message.contains("database is not reachable"))
        let wrong = try await answer("wrong")
        #expect(wrong.code == "internal")
        #expect(!wrong.message.contains("no_such_table"), "the cause stays in the log")
    }

    /// A loopback port nothing listens on (``TestPorts``).
    static func closedPort() throws -> Int { try TestPorts.free() }
}

/// Waits for an operation at most a given time. Unlike a task group, it returns at the limit
/// even when the operation ignores cancellation; the operation is then left behind.
enum Bounded {
    static func within<T: Sendable>(
        _ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let once = Once()
        return try await withCheckedThrowingContinuation { continuation in
            let work = Task {
                do {
                    let value = try await operation()
                    if once.claim() { continuation.resume(returning: value) }
                } catch {
                    if once.claim() { continuation.resume(throwing: error) }
                }
            }
            Task {
                try? await Task.sleep(for: limit)
                if once.claim() {
                    work.cancel()
                    continuation.resume(throwing: TestFailure("\(what) gave no answer within \(limit)"))
                }
            }
        }
    }

    final class Once: Sendable {
        private let taken = Atomic(false)
        /// True for the first caller only.
        func claim() -> Bool { !taken.exchange(true, ordering: .acquiringAndReleasing) }
    }
}
