import AuthContract
import AuthService
import Contract
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Majordomo
import PostgresNIO
import Prometheus
import ServiceKit
import Store
import TestSupport
import Testing
import ZeroMQ

@testable import GatewayService

/// `/v1/admin/queues` and `/v1/admin/dead-letters` through the gateway, against a real broker,
/// a real `notify` worker answering for job tables in real PostgreSQL (its own database, so the
/// `notify` schema is this test's), and tokens from a real `auth` worker's keys.
@Suite("Gateway: queues and dead letters for admins")
struct AdminJobQueueTests {
    @Test("admins see depths and dead letters (secrets redacted), retry and discard them; others get 401 or 403")
    func deadLetters() async throws {
        try await PostgresFixture.withOwnDatabase("gateway_jobs", logger: GatewayTests.logger) { postgres in
            let logger = GatewayTests.logger
            try await postgres.query("DROP SCHEMA IF EXISTS notify CASCADE", logger: logger)
            try await Migrator(client: postgres, schema: "notify", logger: logger).migrate([
                Migration(version: 1, name: "deliveries", sql: JobQueue.migrationSQL(schema: "notify", table: "deliveries"))
            ])
            let queue = JobQueue(client: postgres, schema: "notify", table: "deliveries", logger: logger)
            let doomed = try await queue.enqueue(
                kind: "push", payload: Data(#"{"deviceToken": "abc123", "title": "hello"}"#.utf8))
            let other = try await queue.enqueue(kind: "mail", payload: Data(#"{"to": "a@example.org"}"#.utf8))
            for job in try await queue.claim(limit: 2, lease: 60) {
                _ = try await queue.fail(job, reason: "provider refused", permanent: true)
            }
            try await queue.enqueue(kind: "mail", payload: Data("{}".utf8))

            let issuer = try await TokenIssuer.make(
                kid: "test-key", privateKey: Data((0..<32).map { UInt8($0) }), clock: SystemClock())
            let admin = try await issuer.issue(userId: UUID().uuidString.lowercased(), roles: ["user", "admin"]).token
            let user = try await issuer.issue(userId: UUID().uuidString.lowercased(), roles: ["user", "printer"]).token

            var auth = OperationRouter(service: .auth, logger: logger)
            auth.register(Auth.JWKS.self) { _, _ in issuer.jwks() }
            var notify = OperationRouter(service: .notify, logger: logger)
            JobAdministrationHandlers.register(
                on: &notify, database: Database(client: postgres, maximumConnections: 1, logger: logger), schema: "notify",
                clock: SystemClock())
            try await Self.withWorkers([auth, notify]) { endpoint in
                try await GatewayTests().app(broker: endpoint, services: "notify").test(.router) { client in
                    func call(_ method: HTTPRequest.Method, _ uri: String, _ token: String?) async throws -> TestResponse {
                        var headers = HTTPFields()
                        if let token { headers[.authorization] = "Bearer \(token)" }
                        return try await client.execute(uri: uri, method: method, headers: headers)
                    }
                    for uri in ["/v1/admin/queues", "/v1/admin/dead-letters"] {
                        #expect(try await call(.get, uri, nil).status == .unauthorized)
                        #expect(try await call(.get, uri, user).status == .forbidden)
                    }
                    #expect(try await call(.post, "/v1/admin/dead-letters/notify/\(doomed)/retry", user).status == .forbidden)
                    #expect(try await call(.delete, "/v1/admin/dead-letters/notify/\(doomed)", user).status == .forbidden)

                    let depths = try GatewayTests().json(try await call(.get, "/v1/admin/queues", admin))
                    let services = try #require(depths["services"] as? [[String: Any]])
                    #expect(services.count == 1 && services[0]["service"] as? String == "notify")
                    #expect(services[0]["ok"] as? Bool == true, "\(services[0])")
                    let tables = try #require(services[0]["queues"] as? [[String: Any]])
                    #expect(tables.count == 1 && tables[0]["queue"] as? String == "deliveries")
                    #expect(tables[0]["queued"] as? Int == 1 && tables[0]["dead"] as? Int == 2)

                    let listed = try GatewayTests().json(try await call(.get, "/v1/admin/dead-letters", admin))
                    let items = try #require(listed["items"] as? [[String: Any]])
                    #expect(Set(items.compactMap { $0["id"] as? String }) == [doomed.uuidString.lowercased(), other.uuidString.lowercased()])
                    #expect((listed["unavailable"] as? [String]) == [])
                    let push = try #require(items.first { $0["kind"] as? String == "push" })
                    #expect(push["service"] as? String == "notify" && push["queue"] as? String == "deliveries")
                    #expect(push["deadReason"] as? String == "provider refused")
                    let payload = try #require(push["payload"] as? [String: Any])
                    #expect(payload["deviceToken"] as? String == "[redacted]" && payload["title"] as? String == "hello")
                    #expect(try await call(.get, "/v1/admin/dead-letters?service=notify&limit=1", admin).status == .ok)
                    #expect(try await call(.get, "/v1/admin/dead-letters?service=nobody", admin).status == .badRequest)
                    #expect(try await call(.get, "/v1/admin/dead-letters?limit=0", admin).status == .badRequest)

                    let retried = try await call(.post, "/v1/admin/dead-letters/notify/\(doomed)/retry", admin)
                    #expect(retried.status == .ok)
                    #expect(try GatewayTests().json(retried)["state"] as? String == "queued")
                    #expect(try await queue.job(id: doomed)?.state == .queued)
                    #expect(try await call(.post, "/v1/admin/dead-letters/notify/\(doomed)/retry", admin).status == .notFound)
                    #expect(try await call(.post, "/v1/admin/dead-letters/notify/not-a-uuid/retry", admin).status == .badRequest)
                    #expect(try await call(.post, "/v1/admin/dead-letters/elsewhere/\(doomed)/retry", admin).status == .badRequest)

                    #expect(try await call(.delete, "/v1/admin/dead-letters/notify/\(other)", admin).status == .noContent)
                    #expect(try await queue.job(id: other) == nil)
                    #expect(try await call(.delete, "/v1/admin/dead-letters/notify/\(other)", admin).status == .notFound)
                    #expect(try await call(.delete, "/v1/admin/dead-letters/notify/\(doomed)", admin).status == .notFound,
                        "a queued job is not a dead letter")
                }
            }
        }
    }

    @Test("the console's page, script and style (on the operator listener) come with a strict Content-Security-Policy and no inline code")
    func console() async throws {
        try await GatewayTests().app(broker: "tcp://127.0.0.1:1", listener: .operators).test(.router) { client in
            for (uri, type) in [
                ("/console", "text/html"), ("/console/console.js", "text/javascript"), ("/console/console.css", "text/css"),
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                #expect(response.headers[.contentType]?.hasPrefix(type) == true, "\(uri)")
                let policy = try #require(response.headers[HTTPField.Name("Content-Security-Policy")!])
                #expect(policy.contains("default-src 'self'") && policy.contains("script-src 'self'"))
                #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                #expect(response.body.readableBytes > 100)
            }
            let page = String(buffer: try await client.execute(uri: "/console", method: .get).body)
            #expect(!page.contains("<script>") && !page.contains("style=") && !page.contains(" onclick="))
            #expect(!page.contains("http://") && !page.contains("https://"), "nothing from elsewhere")
            let script = String(buffer: try await client.execute(uri: "/console/console.js", method: .get).body)
            #expect(!script.contains("localStorage.") && !script.contains("sessionStorage.") && !script.contains("document.cookie"))
            #expect(try await client.execute(uri: "/console/other.js", method: .get).status == .notFound)
        }
    }

    /// Runs a broker and one worker per router for the duration of `body`, all beating as often as
    /// the test broker expects (``InProcessBus``).
    static func withWorkers(_ routers: [OperationRouter], _ body: @Sendable (String) async throws -> Void) async throws {
        let broker = try GatewayTests.broker()
        let workers = routers.map { router in
            MajordomoWorker(
                endpoint: broker.endpoint, service: router.service.rawValue, concurrency: 2,
                heartbeat: HeartbeatSettings(intervalMs: 200, liveness: 3), logger: GatewayTests.logger
            ) { await router.handle($0) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await broker.run() }
            for worker in workers { group.addTask { try await worker.run() } }
            defer {
                for worker in workers { worker.drain() }
                broker.stop()
            }
            try await body(broker.endpoint)
            for worker in workers { worker.drain() }
            broker.stop()
            try await group.waitForAll()
        }
    }
}
