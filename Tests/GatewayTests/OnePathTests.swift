import AuthContract
import AuthService
import CivicContract
import Contract
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HydrationContract
import RoutingContract
import ServiceKit
import Store
import Synchronization
import Testing

@testable import GatewayService

/// The one path (``DocumentRoute``) against a real broker and real workers on loopback: the
/// access rule before anything of the request is read, parameters and body merged into one
/// payload, a parameter that does not fit its schema refused without a call, and the owner's
/// choice between 201 and 200.
@Suite("gateway: the one path")
struct OnePathTests {
    /// The payloads the workers got, as JSON objects.
    final class Seen: Sendable {
        private let texts = Mutex<[String]>([])
        func add(_ payload: some Encodable) {
            let text = String(decoding: (try? Wire.makeEncoder().encode(payload)) ?? Data(), as: UTF8.self)
            texts.withLock { $0.append(text) }
        }
        var count: Int { texts.withLock { $0.count } }
        /// The first payload, as a JSON object.
        var first: [String: Any]? { object(texts.withLock { $0.first }) }
        /// The latest payload, as a JSON object.
        var last: [String: Any]? { object(texts.withLock { $0.last }) }

        private func object(_ text: String?) -> [String: Any]? {
            guard let text else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }
    }

    func withSystem(
        _ body: @Sendable (_ client: any TestClientProtocol, _ tokens: [String: String], _ seen: Seen) async throws -> Void
    ) async throws {
        let logger = GatewayTests.logger
        let seen = Seen()
        let issuer = try await TokenIssuer.make(
            kid: "test-key", privateKey: Data((0..<32).map { UInt8($0) }), clock: SystemClock())
        var tokens: [String: String] = [:]
        for (name, roles) in [("user", ["user"]), ("editor", ["user", "civic_editor"]), ("admin", ["user", "admin"])] {
            tokens[name] = try await issuer.issue(userId: UUID().uuidString.lowercased(), roles: roles).token
        }
        var auth = OperationRouter(service: .auth, logger: logger)
        auth.register(Auth.JWKS.self) { _, _ in issuer.jwks() }
        var civic = OperationRouter(service: .civic, logger: logger)
        civic.register(Civic.SetStatedPosition.self) { request, _ in
            seen.add(request)
            return .init(
                position: .init(
                    billId: request.billId, billIdentifier: "HB 9", billTitle: "A bill", kind: "stated",
                    position: request.position, date: request.statedOn, sourceUrl: request.sourceUrl,
                    checkedOn: request.checkedOn),
                created: true)
        }
        civic.register(Civic.UpdateSubscription.self) { request, _ in
            seen.add(request)
            return .init(
                id: request.id, platform: "ios", app: "politimap", jurisdictions: request.jurisdictions,
                subjects: request.subjects, createdAt: "2026-11-24T08:00:00Z", updatedAt: "2026-11-24T09:00:00Z")
        }
        civic.register(Civic.DeleteSubscription.self) { request, _ in
            seen.add(request)
            return Empty()
        }
        var hydration = OperationRouter(service: .hydration, logger: logger)
        hydration.register(Hydration.LogDrink.self) { draft, _ in
            seen.add(draft)
            let drink = Hydration.Drink(
                uuid: draft.uuid, category: .glass, volume: .init(ml: 237, oz: 8), drankAt: draft.drankAt,
                localDay: "2026-11-24", deviceId: nil, modifiedAt: draft.drankAt, modifiedBy: "phone")
            return .init(drink, created: draft.uuid.hasSuffix("1"))
        }
        hydration.register(Hydration.ListDrinks.self) { request, _ in
            seen.add(request)
            return .init(items: [])
        }
        var routing = OperationRouter(service: .routing, logger: logger)
        routing.register(Routing.CreateVenue.self) { draft, _ in
            seen.add(draft)
            return Self.venue(id: UUID().uuidString.lowercased(), draft)
        }
        routing.register(Routing.UpdateVenue.self) { update, _ in
            seen.add(update)
            return Self.venue(id: update.id, update.body)
        }
        let finalTokens = tokens
        try await AdminJobQueueTests.withWorkers([auth, civic, hydration, routing]) { endpoint in
            try await GatewayTests().app(broker: endpoint, services: "auth").test(.router) { client in
                try await body(client, finalTokens, seen)
            }
        }
    }

    static func venue(id: String, _ draft: Routing.VenueDraft) -> Routing.Venue {
        Routing.Venue(
            id: id, name: draft.name, kind: draft.kind, building: draft.building, level: draft.level, lat: draft.lat,
            lon: draft.lon, description: draft.description ?? "", history: draft.history ?? "")
    }

    static func headers(_ token: String?) -> HTTPFields {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return headers
    }

    static func field(_ response: TestResponse) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
        return (object?["details"] as? [String: Any])?["field"] as? String
    }

    @Test("an operation for a role: 401 without a token, 403 without the role even for a malformed body, neither reaching the owner")
    func accessBeforeBody() async throws {
        try await withSystem { client, tokens, seen in
            let uri = "/v1/admin/civic/people/ocd-person-1/positions/bill-9"
            for (token, status) in [(nil, HTTPResponse.Status.unauthorized), (tokens["user"], .forbidden)] {
                let response = try await client.execute(
                    uri: uri, method: .put, headers: Self.headers(token), body: ByteBuffer(string: "{not json"))
                #expect(response.status == status)
            }
            #expect(seen.count == 0)
        }
    }

    @Test("an exception's generated handler is behind the same access rule: 403 before its body is decoded")
    func exceptionAccessBeforeBody() async throws {
        try await withSystem { client, tokens, _ in
            for (uri, method, contentType, body) in [
                ("/v1/print-jobs/batch.pdf", HTTPRequest.Method.post, "application/json", "{not json"),
                ("/v1/admin/currency-rates", .put, "application/xml", "<not xml"),
            ] {
                for (token, status) in [(nil, HTTPResponse.Status.unauthorized), (tokens["user"], .forbidden)] {
                    var headers = Self.headers(token)
                    headers[.contentType] = contentType
                    let response = try await client.execute(
                        uri: uri, method: method, headers: headers, body: ByteBuffer(string: body))
                    #expect(response.status == status, "\(method) \(uri)")
                }
            }
        }
    }

    @Test("an admin operation of NavUP: a plain user's malformed body to createVenue is a 403 without a call; an admin's is the owner's 400")
    func adminBeforeBody() async throws {
        try await withSystem { client, tokens, seen in
            let uri = "/v1/admin/campus/venues"
            let malformed = ByteBuffer(string: #"{"name": "Lab", "kind": 7"#)
            let refused = try await client.execute(
                uri: uri, method: .post, headers: Self.headers(tokens["user"]), body: malformed)
            #expect(refused.status == .forbidden)
            #expect(seen.count == 0)
            let decoded = try await client.execute(
                uri: uri, method: .post, headers: Self.headers(tokens["admin"]), body: malformed)
            #expect(decoded.status == .badRequest, "routing decodes the body and refuses it")
            #expect(seen.count == 0)
            let body = #"{"name": "Lab", "kind": "landmark", "level": 1, "lat": -25.75, "lon": 28.23}"#
            let created = try await client.execute(
                uri: uri, method: .post, headers: Self.headers(tokens["admin"]), body: ByteBuffer(string: body))
            #expect(created.status == .created)
            #expect(seen.count == 1)
        }
    }

    @Test("an update's path id and its flat body reach the owner as one object its contract reads")
    func flatUpdate() async throws {
        try await withSystem { client, tokens, seen in
            let id = UUID().uuidString.lowercased()
            let body = #"{"name": "Lab", "kind": "landmark", "level": 2, "lat": -25.75, "lon": 28.23, "history": null}"#
            let updated = try await client.execute(
                uri: "/v1/admin/campus/venues/\(id)", method: .put, headers: Self.headers(tokens["admin"]),
                body: ByteBuffer(string: body))
            #expect(updated.status == .ok)
            let payload = try #require(seen.last)
            #expect(payload["id"] as? String == id && payload["name"] as? String == "Lab" && payload["venue"] == nil)
            let venue = try JSONSerialization.jsonObject(with: Data(buffer: updated.body)) as? [String: Any]
            #expect(venue?["id"] as? String == id && venue?["level"] as? Int == 2)
        }
    }

    @Test("path parameters and the body reach the owner as one payload; a body member named like a parameter is a 400 without a call")
    func parametersAndBody() async throws {
        try await withSystem { client, tokens, seen in
            let uri = "/v1/admin/civic/people/ocd-person-1/positions/bill-9"
            let body = #"{"position": "support", "statedOn": "2026-11-02", "sourceUrl": "https://example.org/s", "checkedOn": "2026-11-03"}"#
            let set = try await client.execute(
                uri: uri, method: .put, headers: Self.headers(tokens["editor"]), body: ByteBuffer(string: body))
            #expect(set.status == .ok)
            let payload = try #require(seen.first)
            #expect(payload["personId"] as? String == "ocd-person-1" && payload["billId"] as? String == "bill-9")
            #expect(payload["position"] as? String == "support" && payload["checkedOn"] as? String == "2026-11-03")

            let clash = try await client.execute(
                uri: uri, method: .put, headers: Self.headers(tokens["editor"]),
                body: ByteBuffer(string: #"{"billId": "bill-1", "position": "oppose"}"#))
            #expect(clash.status == .badRequest && Self.field(clash) == "billId")
            let notObject = try await client.execute(
                uri: uri, method: .put, headers: Self.headers(tokens["editor"]), body: ByteBuffer(string: "[1]"))
            #expect(notObject.status == .badRequest)
            #expect(seen.count == 1)

            // A path segment is percent-decoded before its schema is applied and it is sent on.
            let encoded = try await client.execute(
                uri: "/v1/admin/civic/people/ocd%2Dperson%C3%A9/positions/bill-9", method: .put,
                headers: Self.headers(tokens["editor"]), body: ByteBuffer(string: body))
            #expect(encoded.status == .ok)
            #expect(seen.last?["personId"] as? String == "ocd-personé")
        }
    }

    @Test("query parameters become typed members; one outside its schema's range or type is a 400 naming it, without a call")
    func queryParameters() async throws {
        try await withSystem { client, tokens, seen in
            let listed = try await client.execute(
                uri: "/v1/me/drinks?limit=20&from=2026-11-01T00:00:00Z", method: .get, headers: Self.headers(tokens["user"]))
            #expect(listed.status == .ok)
            let payload = try #require(seen.first)
            #expect(payload["limit"] as? Int == 20 && payload["from"] as? String == "2026-11-01T00:00:00Z")
            for (query, field) in [("limit=0", "limit"), ("limit=501", "limit"), ("limit=ten", "limit"), ("cursor=a&cursor=b", "cursor")] {
                let refused = try await client.execute(
                    uri: "/v1/me/drinks?\(query)", method: .get, headers: Self.headers(tokens["user"]))
                #expect(refused.status == .badRequest, "\(query)")
                #expect(Self.field(refused) == field, "\(query)")
            }
            #expect(seen.count == 1)
        }
    }

    @Test("a header parameter the document declares becomes a member named as the header; missing or outside its schema it is a 400 naming it, and it is never taken from the body")
    func headerParameters() async throws {
        try await withSystem { client, _, seen in
            let uri = "/v1/civic/subscriptions/sub-1"
            let secret = HTTPField.Name("X-Subscription-Secret")!
            var headers = Self.headers(nil)
            headers[secret] = "s3cret"
            let filter = #"{"jurisdictions": ["ocd-jurisdiction/country:us/government"]}"#
            let updated = try await client.execute(
                uri: uri, method: .put, headers: headers, body: ByteBuffer(string: filter))
            #expect(updated.status == .ok)
            let payload = try #require(seen.first)
            #expect(payload["id"] as? String == "sub-1" && payload["X-Subscription-Secret"] as? String == "s3cret")
            #expect(payload["jurisdictions"] as? [String] == ["ocd-jurisdiction/country:us/government"])
            let ended = try await client.execute(uri: uri, method: .delete, headers: headers)
            #expect(ended.status == .noContent)
            #expect(seen.last?["X-Subscription-Secret"] as? String == "s3cret" && seen.count == 2)

            let missing = try await client.execute(uri: uri, method: .delete, headers: Self.headers(nil))
            #expect(missing.status == .badRequest && Self.field(missing) == "X-Subscription-Secret")
            var long = Self.headers(nil)
            long[secret] = String(repeating: "s", count: 129)
            let tooLong = try await client.execute(uri: uri, method: .delete, headers: long)
            #expect(tooLong.status == .badRequest && Self.field(tooLong) == "X-Subscription-Secret")
            let inBody = try await client.execute(
                uri: uri, method: .put, headers: headers,
                body: ByteBuffer(string: #"{"jurisdictions": [], "X-Subscription-Secret": "other"}"#))
            #expect(inBody.status == .badRequest && Self.field(inBody) == "X-Subscription-Secret")
            #expect(seen.count == 2)
        }
    }

    @Test("the owner decides between 201 (new) and 200 (known already); the body is its reply as it came")
    func createdOrFound() async throws {
        try await withSystem { client, tokens, _ in
            func log(_ uuid: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/v1/me/drinks", method: .post, headers: Self.headers(tokens["user"]),
                    body: ByteBuffer(
                        string: #"{"uuid": "\#(uuid)", "category": "glass", "drankAt": "2026-11-24T08:15:00-05:00"}"#))
            }
            let new = try await log("7d6f0a52-3c1e-4b7a-9a55-0d1c2e3f4a51")
            #expect(new.status == .created)
            let known = try await log("7d6f0a52-3c1e-4b7a-9a55-0d1c2e3f4a50")
            #expect(known.status == .ok)
            let drink = try #require(try JSONSerialization.jsonObject(with: Data(buffer: known.body)) as? [String: Any])
            #expect(drink["uuid"] as? String == "7d6f0a52-3c1e-4b7a-9a55-0d1c2e3f4a50")
            #expect((drink["volume"] as? [String: Any])?["ml"] as? Int == 237)
        }
    }
}
