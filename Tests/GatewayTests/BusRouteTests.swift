import CivicContract
import CivicService
import Contract
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Majordomo
import Prometheus
import RoutingContract
import ServiceKit
import Synchronization
import Testing
import ZeroMQ

@testable import GatewayService

/// The endpoints the gateway serves by passing bytes through (``BusRoute``): which they are,
/// and that what they forward is what the client and the service sent, against a real broker
/// and a real worker on loopback.
@Suite("gateway: pass-through routes")
struct BusRouteTests {
    static let logger: Logger = {
        var logger = Logger(label: "bus-route-test")
        logger.logLevel = .critical
        return logger
    }()

    /// The document's operations: `operationId` by method and path template.
    static func documentOperations() throws -> [String: String] {
        let text = String(decoding: try Gateway.openAPIDocument(), as: UTF8.self)
        var operations: [String: String] = [:]
        var path: String?
        var method: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"),
                ["get", "put", "post", "delete", "patch", "head", "options"].contains(line.dropFirst(4).dropLast())
            {
                method = line.dropFirst(4).dropLast().uppercased()
            } else if let path, let method, let range = line.range(of: "operationId: ") {
                operations["\(method) \(path)"] = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
            } else if !line.hasPrefix(" "), !line.isEmpty {
                path = nil
            }
        }
        return operations
    }

    @Test("every operation of the document is served exactly once: on the one path, or as a listed exception by a generated handler, a pass-through route, a fixed answer or the API reference")
    func everyOperationOnce() throws {
        let operations = try Self.documentOperations()
        #expect(operations.count > 80)
        let settings = try GatewaySettings(ProcessEnvironment(["HTTP_PORT": "0"]))
        let client = try #require(MajordomoClient(endpoint: "tcp://127.0.0.1:1", logger: Self.logger))
        let api = GatewayAPI(bus: BusClient(client: client), settings: settings, document: try Gateway.openAPIDocument())
        var generated = Set<String>()
        for route in try RouteTable(registeredBy: api).routes {
            let template = "/" + route.segments.map { $0 ?? "{}" }.joined(separator: "/")
            for method in route.methods { generated.insert("\(method.rawValue) \(template)") }
        }
        func normalized(_ key: String) -> String {
            key.replacing(/\{[^}]*\}/, with: "{}")
        }
        var served = Set<String>()
        var exceptions = Set<String>()
        func serve(_ method: HTTPRequest.Method, _ path: String, _ operationId: String) {
            let key = "\(method.rawValue) \(path)"
            #expect(operations[key] == operationId, "\(key) is \(operations[key] ?? "not in the document")")
            #expect(served.insert(normalized(key)).inserted, "\(key) twice")
            #expect(!generated.contains(normalized(key)), "\(key) is also generated")
        }
        for route in try DocumentRoute.all(in: try Gateway.openAPIDocument()) {
            #expect(GatewayExceptions.kind(of: route.spec.operationId) == nil)
            serve(route.spec.method, route.spec.path, route.spec.operationId)
        }
        for route in BusRoute.all {
            exceptions.insert(route.operationId)
            serve(route.method, route.path, route.operationId)
        }
        for route in FixedRoute.all {
            exceptions.insert(route.operationId)
            serve(route.method, route.path, route.operationId)
        }
        for file in APIReference.all {
            exceptions.insert(file.operationId)
            serve(.get, file.path, file.operationId)
        }
        for (key, operationId) in operations {
            #expect(generated.contains(normalized(key)) != served.contains(normalized(key)), "\(key)")
            if generated.contains(normalized(key)) { exceptions.insert(operationId) }
        }
        // What is not on the one path is listed, once, with its reason; and nothing else is.
        for operationId in exceptions {
            #expect(GatewayExceptions.kind(of: operationId) != nil, "\(operationId) is not in GatewayExceptions")
        }
        let listed = GatewayExceptions.Kind.allCases.map { GatewayExceptions.operations(of: $0) }
        #expect(listed.reduce(0) { $0 + $1.count } == Set(listed.joined()).count, "an operation listed twice")
        #expect(Set(listed.joined()) == exceptions)
    }

    @Test("the generator's list of operations is the document's exceptions, less the pass-through, fixed and reference ones")
    func generatorConfiguration() throws {
        let config = URL(filePath: #filePath).deletingLastPathComponent()
            .appending(path: "../../services/gateway/GatewayService/openapi-generator-config.yaml")
        let listed = Set(
            try String(contentsOf: config, encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("    - ") }.map { String($0.dropFirst(6)) })
        let expected = Set(try Self.documentOperations().values)
            .subtracting(try DocumentRoute.all(in: try Gateway.openAPIDocument()).map(\.spec.operationId))
            .subtracting(BusRoute.all.map(\.operationId))
            .subtracting(FixedRoute.all.map(\.operationId)).subtracting(APIReference.all.map(\.operationId))
        #expect(listed == expected)
    }

    @Test("PolitiMap's public reads pass through to anyone, tagged by their bytes and publicly cacheable (the next meeting: cacheable, untagged)")
    func civicReads() throws {
        let civic = try DocumentRoute.all(in: try Gateway.openAPIDocument()).map(\.spec)
            .filter { $0.service == "civic" && $0.method == .get && $0.access == .anyone }
        #expect(civic.count == 10)
        for spec in civic {
            #expect(!spec.jsonBody, "\(spec.operationId)")
            #expect(spec.cacheControl == EntityTag.publicCacheControl, "\(spec.operationId)")
            #expect(spec.tagged == (spec.operationId != "nextMeeting"), "\(spec.operationId)")
        }
        // The tag is the first half of the SHA-256 of the bytes, quoted (here of no bytes).
        #expect(EntityTag([], from: .content)?.value == "\"e3b0c44298fc1c149afbf4c8996fb924\"")
        #expect(EntityTag([], from: .content)?.isMatched(by: "W/\"e3b0c44298fc1c149afbf4c8996fb924\", \"x\"") == true)
    }

    @Test("each operation's owner, access and repeatability come from the document; admin operations name their role")
    func accessFromDocument() throws {
        let specs = Dictionary(
            uniqueKeysWithValues: try DocumentRoute.all(in: try Gateway.openAPIDocument()).map {
                ($0.spec.operationId, $0.spec)
            })
        #expect(specs["logDrink"]?.service == "hydration" && specs["logDrink"]?.operation == "log_drink")
        #expect(specs["logDrink"]?.access == .user && specs["logDrink"]?.repeatable == true)
        #expect(specs["logDrink"]?.status(created: true) == 201 && specs["logDrink"]?.status(created: false) == 200)
        #expect(specs["deleteDrink"]?.status(created: false) == 204)
        #expect(specs["listCurrencies"]?.access == .anyone)
        #expect(specs["listUsers"]?.access == .role(.admin))
        #expect(specs["countPrintJobs"]?.access == .role(.printer))
        #expect(specs["setCivicStatedPosition"]?.access == .role(.civicEditor))
        #expect(specs["civicLookup"]?.maxBodyBytes == 1024)
        #expect(specs["createVenue"]?.access == .role(.admin) && specs["createVenue"]?.status(created: false) == 201)
        #expect(specs["reportOccupancy"]?.access == .role(.wifiController))
        #expect(specs["redeemVoucher"]?.access == .role(.rewardsManager))
        #expect(specs["listNotifications"]?.service == "notify" && specs["listNotifications"]?.operation == "list_inbox")
        for spec in specs.values where spec.path.hasPrefix("/v1/admin/") {
            if case .role = spec.access {} else { Issue.record("\(spec.operationId) names no role") }
        }
    }

    @Test("a JSON content type is application/json or a +json type, with any parameters")
    func jsonContentTypes() {
        #expect(DocumentRoute.isJSON("application/json"))
        #expect(DocumentRoute.isJSON("Application/JSON; charset=utf-8"))
        #expect(DocumentRoute.isJSON("application/merge-patch+json"))
        #expect(!DocumentRoute.isJSON("text/plain"))
        #expect(!DocumentRoute.isJSON("application/jsonx"))
        #expect(!DocumentRoute.isJSON("multipart/form-data; boundary=x"))
    }

    /// Runs a broker and a `routing` worker that answers `locate` with what it was sent (its
    /// first access point's signal as the level) and `search_venues` with the request it got
    /// (as a venue's name), for the duration of `body`.
    func withRouting(_ body: @Sendable (String) async throws -> Void) async throws {
        var router = OperationRouter(service: .routing, logger: Self.logger)
        router.register(Routing.Locate.self) { request, _ in
            guard let first = request.scan.first else { throw ServiceError.invalidArgument("scan is empty", field: "scan") }
            return .init(
                lat: -25.75, lon: 28.23, level: Int(first.rssi), accuracy: 4.5, source: "wifi",
                accessPointsUsed: request.scan.count)
        }
        router.register(Routing.SearchVenues.self) { request, _ in
            let described = "q=\(request.q ?? "-") kind=\(request.kind ?? "-") near=\(request.nearLat ?? 0),\(request.nearLon ?? 0) limit=\(request.limit ?? 0)"
            return .init(
                items: [
                    Routing.Venue(
                        id: "8c6f2f4e-59a4-4a51-8f5e-2f1f2c1d0e9a", name: described, kind: "landmark", building: nil,
                        level: 0, lat: -25.75, lon: 28.23, description: "", history: "")
                ])
        }
        try await GatewayTests.withWorker(router, body)
    }

    func app(broker: String) throws -> some ApplicationProtocol {
        try GatewayTests().app(broker: broker, services: "routing")
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test("tracing off: a client's valid traceparent reaches the service as it came; an invalid one does not, nor does none")
    func traceparentPassesThrough() async throws {
        var router = OperationRouter(service: .routing, logger: Self.logger)
        router.register(Routing.SearchVenues.self) { _, context in
            .init(
                items: [
                    Routing.Venue(
                        id: "8c6f2f4e-59a4-4a51-8f5e-2f1f2c1d0e9a", name: context.metadata.traceparent ?? "none",
                        kind: "landmark", building: nil, level: 0, lat: -25.75, lon: 28.23, description: "", history: "")
                ])
        }
        try await GatewayTests.withWorker(router) { endpoint in
            try await app(broker: endpoint).test(.router) { client in
                let header = HTTPField.Name("traceparent")!
                func seen(_ traceparent: String?) async throws -> String? {
                    var headers: HTTPFields = [:]
                    if let traceparent { headers[header] = traceparent }
                    let response = try await client.execute(uri: "/v1/campus/venues", method: .get, headers: headers)
                    #expect(response.status == .ok)
                    #expect(response.headers[HTTPField.Name("traceresponse")!] == nil, "no span with tracing off")
                    return ((try Self.json(response)["items"] as? [[String: Any]])?.first)?["name"] as? String
                }
                let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                let passed = try await seen(valid)
                let zeroParent = try await seen("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01")
                let nonsense = try await seen("nonsense")
                let absent = try await seen(nil)
                #expect(passed == valid)
                #expect(zeroParent == "none" && nonsense == "none" && absent == "none")
            }
        }
    }

    @Test("a forwarded body reaches the service as sent; its reply is the response; its refusal keeps status and field")
    func forwardsBodies() async throws {
        try await withRouting { endpoint in
            try await app(broker: endpoint).test(.router) { client in
                let json: HTTPFields = [.contentType: "application/json"]
                let scan = #"{"scan": [{"bssid": "aa:bb:cc:dd:ee:01", "rssi": -3}, {"bssid": "aa:bb:cc:dd:ee:02", "rssi": -70}]}"#
                let located = try await client.execute(
                    uri: "/v1/campus/locate", method: .post, headers: json, body: ByteBuffer(string: scan))
                #expect(located.status == .ok)
                #expect(located.headers[.contentType]?.hasPrefix("application/json") == true)
                #expect(located.headers[HTTPField.Name("X-Request-Id")!] != nil)
                let body = try Self.json(located)
                #expect(body["level"] as? Int == -3)
                #expect(body["accessPointsUsed"] as? Int == 2)
                #expect(body["source"] as? String == "wifi")

                // The service's own checks answer for the gateway: a missing member names its field.
                let missing = try await client.execute(
                    uri: "/v1/campus/locate", method: .post, headers: json, body: ByteBuffer(string: #"{"gps": {}}"#))
                #expect(missing.status == .badRequest)
                let refusal = try Self.json(missing)
                #expect(refusal["code"] as? String == "invalid_argument")
                #expect((refusal["details"] as? [String: Any])?["field"] as? String == "scan")
                #expect(refusal["requestId"] as? String == missing.headers[HTTPField.Name("X-Request-Id")!])

                let empty = try await client.execute(
                    uri: "/v1/campus/locate", method: .post, headers: json, body: ByteBuffer(string: #"{"scan": []}"#))
                #expect(empty.status == .badRequest)
                #expect((try Self.json(empty)["details"] as? [String: Any])?["field"] as? String == "scan")

                let notJSON = try await client.execute(
                    uri: "/v1/campus/locate", method: .post, headers: [.contentType: "text/plain"],
                    body: ByteBuffer(string: scan))
                #expect(notJSON.status == .badRequest)
                let noBody = try await client.execute(uri: "/v1/campus/locate", method: .post, headers: json)
                #expect(noBody.status == .badRequest)
                let malformed = try await client.execute(
                    uri: "/v1/campus/locate", method: .post, headers: json, body: ByteBuffer(string: "{\"scan\": ["))
                #expect(malformed.status == .badRequest)
            }
        }
    }

    @Test("PolitiMap's lookup passes through to anyone: the body as sent to civic, whose refusals name the member and never the body; 413 past 1024 bytes without a call")
    func civicLookup() async throws {
        let route = try #require(
            try DocumentRoute.all(in: try Gateway.openAPIDocument()).first { $0.spec.operationId == "civicLookup" }
        ).spec
        #expect(route.access == .anyone && route.method == .post && route.jsonBody)
        #expect(route.maxBodyBytes == 1024 && route.maxBodyBytes == LookupBody.maxBytes)
        #expect(!route.tagged && route.cacheControl == nil, "a point's answer is not cacheable")
        // Civic's own reading of the body, behind a worker that keeps each payload it got.
        final class Payloads: Sendable {
            let all = Mutex<[String]>([])
        }
        let payloads = Payloads()
        let atlas = try BoundaryHandler.shipped()
        var router = OperationRouter(service: .civic, logger: Self.logger)
        router.register(
            Civic.Lookup.self,
            decoding: { payload throws(ServiceError) in
                payloads.all.withLock { $0.append(String(decoding: payload, as: UTF8.self)) }
                return try LookupBody.decode(payload)
            }
        ) { try await atlas.lookup($0, $1) }
        try await GatewayTests.withWorker(router) { endpoint in
            try await GatewayTests().app(broker: endpoint, services: "civic").test(.router) { client in
                let json: HTTPFields = [.contentType: "application/json"]
                func lookup(_ body: String) async throws -> TestResponse {
                    try await client.execute(
                        uri: "/v1/civic/lookup", method: .post, headers: json, body: ByteBuffer(string: body))
                }
                let point = #"{"lat": 35.28286293, "lon": -120.65966293}"#
                let found = try await lookup(point)
                #expect(found.status == .ok)
                #expect(found.headers[.eTag] == nil && found.headers[.cacheControl] == nil)
                let matches = try #require(try Self.json(found)["jurisdictions"] as? [[String: Any]])
                #expect(matches.count == 5)
                #expect(payloads.all.withLock { $0 } == [point], "the body reaches civic as it was sent")

                // Refusals come from civic and name the member; none repeats the body's digits (6293).
                for (body, field) in [
                    (#"{"lat": 95.6293, "lon": 0}"#, "lat"), (#"{"lat": "35.6293", "lon": 0}"#, "lat"),
                    (#"{"lat": 35.2, "lon": 1e6293}"#, "lon"), (#"{"lat": 35.2}"#, "lon"),
                    (#"{"lat": 35.2, "lon": -120.6, "x6293": 1}"#, "body"), (#"{"lat": 35.6293, "lon": "#, "body"),
                    ("lat=35.6293", "body"), ("[35.6293]", "body"),
                ] {
                    let refused = try await lookup(body)
                    #expect(refused.status == .badRequest, "\(body)")
                    let text = String(buffer: refused.body)
                    // The request id is random hex and may hold those digits by chance: it is not the body.
                    let requestID = try Self.json(refused)["requestId"] as? String ?? ""
                    #expect(!text.replacingOccurrences(of: requestID, with: "").contains("6293"), "\(body) → \(text)")
                    #expect((try Self.json(refused)["details"] as? [String: Any])?["field"] as? String == field, "\(text)")
                }

                // Past the route's limit: 413 from the gateway, nothing sent to civic.
                let calls = payloads.all.withLock { $0.count }
                let large = try await lookup(#"{"lat": 35.2, "lon": -120.6, "pad": ""# + String(repeating: "6293", count: 300) + "\"}")
                #expect(large.status == .contentTooLarge)
                let refusal = try Self.json(large)
                #expect(refusal["code"] as? String == "invalid_argument")
                #expect((refusal["details"] as? [String: Any])?["reason"] as? String == "too_large")
                #expect(
                    !String(buffer: large.body).replacingOccurrences(of: refusal["requestId"] as? String ?? "", with: "")
                        .contains("6293"))
                #expect(large.headers[HTTPField.Name("X-Request-Id")!] != nil)
                #expect(payloads.all.withLock { $0.count } == calls)
                // At the limit it is civic's to read (and refuse: a member other than lat and lon).
                let padded = #"{"lat": 35.2, "lon": -120.6, "pad": ""#
                let atLimit = try await lookup(padded + String(repeating: "x", count: 1024 - padded.utf8.count - 2) + "\"}")
                #expect(atLimit.status == .badRequest)
                #expect(payloads.all.withLock { $0.count } == calls + 1)
            }
        }
    }

    @Test("PolitiMap's outlines from an operator's file (CIVIC_BOUNDARIES_FILE): served through the gateway with an ETag of their own, so an app's copy of the bundled ones is fetched again")
    func civicOutlinesFromAFile() async throws {
        let square = [[-119.88, 36.64], [-119.68, 36.64], [-119.68, 36.84], [-119.88, 36.84], [-119.88, 36.64]]
        let text = """
            {"type": "FeatureCollection", "features": [{"type": "Feature", "id": "state:ca/sldl:99",
             "properties": {"jurisdictionId": "ocd-jurisdiction/country:us/state:ca/government",
                            "name": "California Assembly District 99", "level": "state", "district": "99"},
             "geometry": {"type": "Polygon", "coordinates": [\(square)]}}]}
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("civic-outlines-\(UUID()).geojson")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let atlas = try BoundaryHandler.configured(ProcessEnvironment(["CIVIC_BOUNDARIES_FILE": file.path]))
        let bundled = try #require(EntityTag(try BoundaryHandler.shipped().encoded, from: .content)?.value)
        let loaded = try #require(EntityTag(atlas.encoded, from: .content)?.value)
        #expect(loaded != bundled)
        var router = OperationRouter(service: .civic, logger: Self.logger)
        router.registerEncoded(Civic.Boundaries.self) { _, _ in atlas.encoded }
        try await GatewayTests.withWorker(router) { endpoint in
            try await GatewayTests().app(broker: endpoint, services: "civic").test(.router) { client in
                let first = try await client.execute(uri: "/v1/civic/boundaries", method: .get)
                #expect(first.status == .ok && first.headers[.eTag] == loaded)
                let features = try #require(try Self.json(first)["features"] as? [[String: Any]])
                #expect(
                    features.count == (try BoundaryHandler.shipped().features.count) + 1
                        && features.last?["id"] as? String == "state:ca/sldl:99")
                let stale = try await client.execute(
                    uri: "/v1/civic/boundaries", method: .get, headers: [.ifNoneMatch: bundled])
                #expect(stale.status == .ok, "a copy of the bundled outlines is out of date")
                let current = try await client.execute(
                    uri: "/v1/civic/boundaries", method: .get, headers: [.ifNoneMatch: loaded])
                #expect(current.status == .notModified)
            }
        }
    }

    @Test("a request built from the query carries each parameter; a malformed one is a 400 naming it")
    func buildsFromQuery() async throws {
        try await withRouting { endpoint in
            try await app(broker: endpoint).test(.router) { client in
                let found = try await client.execute(
                    uri: "/v1/campus/venues?q=IT%20building&kind=landmark&near=-25.75,%2028.23&limit=7", method: .get)
                #expect(found.status == .ok)
                let items = try #require(try Self.json(found)["items"] as? [[String: Any]])
                #expect(items.first?["name"] as? String == "q=IT building kind=landmark near=-25.75,28.23 limit=7")

                for (query, field) in [
                    ("limit=seven", "limit"), ("near=north", "near"), ("radius=far", "radius"), ("q=a&q=b", "q"),
                ] {
                    let refused = try await client.execute(uri: "/v1/campus/venues?\(query)", method: .get)
                    #expect(refused.status == .badRequest, "\(query)")
                    #expect((try Self.json(refused)["details"] as? [String: Any])?["field"] as? String == field)
                }
            }
        }
    }

    @Test("civic's people by chamber: a good chamber reaches civic in the request; another is a 400 naming chamber, without a call")
    func civicPeopleChamber() async throws {
        final class Requests: Sendable {
            let all = Mutex<[Civic.ListPeople.Request]>([])
        }
        let requests = Requests()
        var router = OperationRouter(service: .civic, logger: Self.logger)
        router.register(Civic.ListPeople.self) { request, _ in
            requests.all.withLock { $0.append(request) }
            return Civic.ListPeople.Reply(items: [])
        }
        try await GatewayTests.withWorker(router) { endpoint in
            try await GatewayTests().app(broker: endpoint, services: "civic").test(.router) { client in
                for chamber in Civic.Chamber.allCases {
                    let found = try await client.execute(
                        uri: "/v1/civic/people?district=30&chamber=\(chamber.rawValue)", method: .get)
                    #expect(found.status == .ok)
                }
                let none = try await client.execute(uri: "/v1/civic/people?district=30", method: .get)
                #expect(none.status == .ok)
                #expect(requests.all.withLock { $0.map(\.chamber) } == [.upper, .lower, .legislature, nil])
                #expect(requests.all.withLock { $0.allSatisfy { $0.district == "30" } })
                for query in ["chamber=senate", "chamber=UPPER", "chamber=", "chamber=upper&chamber=lower"] {
                    let refused = try await client.execute(uri: "/v1/civic/people?\(query)", method: .get)
                    #expect(refused.status == .badRequest, "\(query)")
                    let error = try Self.json(refused)
                    #expect((error["details"] as? [String: Any])?["field"] as? String == "chamber", "\(query)")
                    #expect(!String(buffer: refused.body).contains("senate"), "the refusal does not repeat the value")
                }
                #expect(requests.all.withLock { $0.count } == 4, "no refused request reached civic")
            }
        }
    }

    @Test("a route for signed-in callers is a 401 without a token, before any call")
    func signedInOnly() async throws {
        try await app(broker: "tcp://127.0.0.1:1").test(.router) { client in
            let response = try await client.execute(uri: "/v1/me", method: .get)
            #expect(response.status == .unauthorized)
            #expect(try Self.json(response)["code"] as? String == "unauthenticated")
        }
    }
}
