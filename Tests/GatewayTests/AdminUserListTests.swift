import AuthContract
import AuthService
import Contract
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PrintingContract
import ServiceKit
import Store
import Synchronization
import TestSupport
import Testing

@testable import GatewayService

/// `GET /v1/admin/users` through the gateway against a real `auth` worker on real PostgreSQL (a
/// database of its own, so the accounts are this test's), and `GET /v1/admin/print-jobs/counts`
/// forwarded to a `printing` worker on a real broker.
@Suite("Gateway: the admin's list of users and the printer's counts per day")
struct AdminUserListTests {
    @Test("admins list accounts by prefix and role, a page at a time, without secrets; others get 401 or 403")
    func users() async throws {
        try await PostgresFixture.withOwnDatabase("gateway_users", logger: GatewayTests.logger) { postgres in
            let logger = GatewayTests.logger
            try await Migrator(client: postgres, schema: "auth", logger: logger).migrate(AuthService.migrations())
            let accounts = AccountStore(client: postgres, logger: logger)
            let start = Date(timeIntervalSince1970: 1_795_478_400)
            var made: [String] = []
            for (offset, name) in ["ann.lund", "anders", "bo.malmo", "annika"].enumerated() {
                let id = try await accounts.create(
                    id: UUID(), username: try Username(name), passwordHash: "$argon2id$not-a-real-hash",
                    email: name == "bo.malmo" ? "Annie@example.org" : nil, phone: nil,
                    now: start.addingTimeInterval(Double(offset)),
                    roles: name == "anders" ? ["user", "printer"] : ["user"])
                made.append(id.uuidString.lowercased())
            }
            let ids = made
            let issuer = try await TokenIssuer.make(
                kid: "test-key", privateKey: Data((0..<32).map { UInt8($0) }), clock: SystemClock())
            let admin = try await issuer.issue(userId: UUID().uuidString.lowercased(), roles: ["user", "admin"]).token
            let printer = try await issuer.issue(userId: UUID().uuidString.lowercased(), roles: ["user", "printer"]).token

            var auth = OperationRouter(service: .auth, logger: logger)
            auth.register(Auth.JWKS.self) { _, _ in issuer.jwks() }
            AuthService.register(userList: UserListHandler(accounts: accounts), on: &auth)
            try await AdminJobQueueTests.withWorkers([auth]) { endpoint in
                try await GatewayTests().app(broker: endpoint, services: "auth").test(.router) { client in
                    func call(_ uri: String, _ token: String?) async throws -> TestResponse {
                        var headers = HTTPFields()
                        if let token { headers[.authorization] = "Bearer \(token)" }
                        return try await client.execute(uri: uri, method: .get, headers: headers)
                    }
                    func items(_ response: TestResponse) throws -> [[String: Any]] {
                        #expect(response.status == .ok)
                        return try #require(try GatewayTests().json(response)["items"] as? [[String: Any]])
                    }
                    #expect(try await call("/v1/admin/users", nil).status == .unauthorized)
                    #expect(try await call("/v1/admin/users", printer).status == .forbidden)

                    let everyone = try items(try await call("/v1/admin/users", admin))
                    #expect(everyone.compactMap { $0["userId"] as? String } == ids, "oldest first")
                    #expect(Set(everyone[0].keys) == ["userId", "username", "roles", "createdAt"])
                    #expect(everyone[0]["createdAt"] as? String == "2026-11-24T00:00:00Z")
                    let text = String(buffer: try await call("/v1/admin/users", admin).body)
                    #expect(!text.contains("argon2") && !text.contains("Annie"), "no hash, no e-mail address")

                    let ann = try items(try await call("/v1/admin/users?q=AnN", admin))
                    #expect(ann.compactMap { $0["username"] as? String } == ["ann.lund", "bo.malmo", "annika"])
                    let printers = try items(try await call("/v1/admin/users?role=printer", admin))
                    #expect(printers.compactMap { $0["username"] as? String } == ["anders"])
                    #expect(printers.first?["roles"] as? [String] == ["user", "printer"])

                    let first = try await call("/v1/admin/users?q=an&limit=2", admin)
                    let cursor = try #require(try GatewayTests().json(first)["nextCursor"] as? String)
                    let second = try await call(
                        "/v1/admin/users?q=an&limit=2&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                        admin)
                    #expect(try GatewayTests().json(second)["nextCursor"] == nil)
                    #expect(
                        try (items(first) + items(second)).compactMap { $0["username"] as? String }
                            == ["ann.lund", "anders", "bo.malmo", "annika"])

                    for bad in ["role=root", "limit=0", "limit=201", "limit=two", "cursor=elsewhere", "q=a%00b"] {
                        let response = try await call("/v1/admin/users?\(bad)", admin)
                        #expect(response.status == .badRequest, "\(bad)")
                    }
                }
            }
        }
    }

    @Test("the printer's counts: days forwarded to printing, its answer passed through, 400 for a days that is no number")
    func printJobCounts() async throws {
        let logger = GatewayTests.logger
        let issuer = try await TokenIssuer.make(
            kid: "test-key", privateKey: Data((0..<32).map { UInt8($0) }), clock: SystemClock())
        let printer = try await issuer.issue(userId: UUID().uuidString.lowercased(), roles: ["user", "printer"]).token
        let asked = Asked()
        var auth = OperationRouter(service: .auth, logger: logger)
        auth.register(Auth.JWKS.self) { _, _ in issuer.jwks() }
        var printing = OperationRouter(service: .printing, logger: logger)
        printing.register(Printing.CountPrintJobs.self) { request, context in
            _ = try context.requireRole(.printer)
            asked.days.withLock { $0.append(request.days) }
            return .init(
                from: "2026-11-19", to: "2026-11-25",
                counts: [.init(day: "2026-11-25", status: "ready", jobs: 3, cards: 7)])
        }
        try await AdminJobQueueTests.withWorkers([auth, printing]) { endpoint in
            try await GatewayTests().app(broker: endpoint, services: "printing").test(.router) { client in
                var headers = HTTPFields()
                headers[.authorization] = "Bearer \(printer)"
                #expect(try await client.execute(uri: "/v1/admin/print-jobs/counts", method: .get).status == .unauthorized)
                let response = try await client.execute(
                    uri: "/v1/admin/print-jobs/counts?days=7", method: .get, headers: headers)
                #expect(response.status == .ok)
                let body = try GatewayTests().json(response)
                #expect(body["from"] as? String == "2026-11-19" && body["to"] as? String == "2026-11-25")
                let counts = try #require(body["counts"] as? [[String: Any]])
                #expect(counts.count == 1 && counts[0]["jobs"] as? Int == 3 && counts[0]["cards"] as? Int == 7)
                #expect(try await client.execute(uri: "/v1/admin/print-jobs/counts", method: .get, headers: headers).status == .ok)
                let bad = try await client.execute(
                    uri: "/v1/admin/print-jobs/counts?days=week", method: .get, headers: headers)
                #expect(bad.status == .badRequest)
                #expect(asked.days.withLock { $0 } == [7, nil], "the service got the days asked, or none")
            }
        }
    }
}

/// The `days` each count request brought to the printing worker, in order.
private final class Asked: Sendable {
    let days = Mutex<[Int?]>([])
}
