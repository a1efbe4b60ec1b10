import Contract
import Foundation
import Majordomo
import ServiceKit
import Testing

/// The wire contract end to end: typed call in the client, typed handler in the worker.
@Suite("Wire contract over the broker")
struct ContractTests {
    enum Greet: BusOperation {
        struct Request: Codable, Sendable { let name: String; let times: Int }
        struct Reply: Codable, Sendable, Equatable { let text: String; let requestId: String }
        static let name = "greet"
    }

    enum Fail: BusOperation {
        typealias Request = Empty
        typealias Reply = Empty
        static let name = "fail"
    }

    enum Crash: BusOperation {
        typealias Request = Empty
        typealias Reply = Empty
        static let name = "crash"
    }

    /// Answered with a reply the handler keeps encoded.
    enum Greeting: BusOperation {
        typealias Request = Greet.Request
        typealias Reply = Greet.Reply
        static let name = "greeting"
    }

    struct Boom: Error {}

    static func router() -> OperationRouter {
        var router = OperationRouter(service: ServiceName("greeter"), logger: Harness.logger)
        router.register(Greet.self) { request, context in
            guard request.times > 0 else {
                throw ServiceError.invalidArgument("times must be positive", field: "times")
            }
            return .init(
                text: Array(repeating: "hello \(request.name)", count: request.times).joined(separator: ", "),
                requestId: context.metadata.requestId)
        }
        router.register(Fail.self) { _, _ in
            throw ServiceError(.locked, "held", details: ["retryAfterSeconds": 90])
        }
        router.register(Crash.self) { _, _ in throw Boom() }
        router.registerEncoded(Greeting.self) { request, _ in
            guard !request.name.isEmpty else { throw ServiceError.invalidArgument("name is empty", field: "name") }
            return Array(#"{"requestId":"kept","text":"hello, encoded"}"#.utf8)
        }
        return router
    }

    func withGreeter(_ body: @Sendable (BusClient) async throws -> Void) async throws {
        try await Harness.withBroker { broker in
            let router = Self.router()
            let worker = Harness.echoWorker(broker.endpoint, service: "greeter") { await router.handle($0) }
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, worker]) {
                try await body(BusClient(client: client, defaultTimeout: .seconds(10)))
            }
        }
    }

    let metadata = RequestMetadata(requestId: "req-1")

    @Test("a typed request gets its typed reply, and the handler sees the request id")
    func typedCall() async throws {
        try await withGreeter { bus in
            let reply = try await bus.call(
                Greet.self, on: ServiceName("greeter"), .init(name: "Lund", times: 2), metadata: metadata)
            #expect(reply == .init(text: "hello Lund, hello Lund", requestId: "req-1"))
        }
    }

    @Test("a reply kept encoded arrives as the typed reply; a raw call gets the payload's bytes and the errors typed")
    func encodedReplies() async throws {
        try await withGreeter { bus in
            let typed = try await bus.call(
                Greeting.self, on: ServiceName("greeter"), .init(name: "Lund", times: 1), metadata: metadata)
            #expect(typed == .init(text: "hello, encoded", requestId: "kept"))
            let raw = try await bus.call(
                "greeting", on: ServiceName("greeter"), payloadJSON: Array(#"{"name":"Lund","times":1}"#.utf8),
                metadata: metadata)
            #expect(String(decoding: raw, as: UTF8.self) == #"{"requestId":"kept","text":"hello, encoded"}"#)
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await bus.call(
                    "greeting", on: ServiceName("greeter"), payloadJSON: Array(#"{"name":"","times":1}"#.utf8),
                    metadata: metadata)
            }
            #expect(refused?.code == .invalidArgument)
            #expect(refused?.details?["field"] == "name")
            let malformed = await #expect(throws: ServiceError.self) {
                _ = try await bus.call(
                    "greet", on: ServiceName("greeter"), payloadJSON: Array(#"{"name":"#.utf8), metadata: metadata)
            }
            #expect(malformed?.code == .invalidArgument)
        }
    }

    @Test("a ServiceError crosses the wire with its code, message and details")
    func serviceErrors() async throws {
        try await withGreeter { bus in
            do {
                _ = try await bus.call(Fail.self, on: ServiceName("greeter"), Empty(), metadata: metadata)
                Issue.record("must throw")
            } catch let error as ServiceError {
                #expect(error.code == .locked)
                #expect(error.message == "held")
                #expect(error.retryAfterSeconds == 90)
            }
            do {
                _ = try await bus.call(
                    Greet.self, on: ServiceName("greeter"), .init(name: "x", times: 0), metadata: metadata)
                Issue.record("must throw")
            } catch let error as ServiceError {
                #expect(error.code == .invalidArgument)
                #expect(error.details?["field"] == "times")
            }
        }
    }

    @Test("an unexpected error is `internal` with the request id, never the cause")
    func internalErrors() async throws {
        try await withGreeter { bus in
            do {
                _ = try await bus.call(Crash.self, on: ServiceName("greeter"), Empty(), metadata: metadata)
                Issue.record("must throw")
            } catch let error as ServiceError {
                #expect(error.code == .internal)
                #expect(error.message.contains("req-1"))
                #expect(!error.message.contains("Boom"))
            }
        }
    }

    @Test("bad input is `invalid_argument`: unknown operation, missing field, malformed frames")
    func badInput() async throws {
        let router = Self.router()
        let metadataJSON = Array(try Wire.makeEncoder().encode(metadata))
        let unknown = await router.handle([Array("nope".utf8), metadataJSON, Array("{}".utf8)])
        #expect(String(decoding: unknown[0], as: UTF8.self) == "invalid_argument")
        #expect(String(decoding: unknown[1], as: UTF8.self).contains("no operation 'nope'"))
        let missing = await router.handle([Array("greet".utf8), metadataJSON, Array(#"{"name":"x"}"#.utf8)])
        #expect(String(decoding: missing[1], as: UTF8.self).contains("missing field 'times'"))
        let wrongCount = await router.handle([Array("greet".utf8)])
        #expect(String(decoding: wrongCount[0], as: UTF8.self) == "invalid_argument")
        let badMetadata = await router.handle([Array("greet".utf8), Array("not json".utf8), Array("{}".utf8)])
        #expect(String(decoding: badMetadata[0], as: UTF8.self) == "invalid_argument")
    }

    /// A payload with members of every kind a decoder's own text can quote.
    enum Probe: BusOperation {
        struct Item: Codable, Sendable { let n: Int }
        enum Kind: String, Codable, Sendable { case plain, fancy }
        struct Request: Codable, Sendable {
            let lat: Double
            let count: Int?
            let kind: Kind?
            let tags: [String: Int]?
            let when: Date?
            let items: [Item]?
        }
        typealias Reply = Empty
        static let name = "probe"
    }

    @Test("a payload that does not decode is refused naming the member and the rule, never a piece of the input (reply and log)")
    func refusalsEchoNothing() async throws {
        var router = OperationRouter(service: ServiceName("probe"), logger: Harness.logger)
        router.register(Probe.self) { _, _ in Empty() }
        let metadataJSON = Array(try Wire.makeEncoder().encode(metadata))
        // Each holds the digits 73519, which must be in no answer; the field named, where there is one.
        let cases: [(body: String, field: String?)] = [
            // JSONDecoder names no member for a number that does not fit.
            (#"{"lat": 1e73519}"#, nil),
            (#"{"lat": "73519"}"#, "lat"),
            (#"{"lat": true, "count": 73519}"#, "lat"),
            (#"{"lat": 1, "count": 735190000000000000000000000}"#, nil),
            (#"{"lat": 1, "count": 7.3519}"#, nil),
            (#"{"lat": 1, "kind": "fancy73519"}"#, "kind"),
            (#"{"lat": 1, "tags": {"t73519": "x"}}"#, "tags.*"),
            (#"{"lat": 1, "tags": {"73519": "x"}}"#, "tags.*"),
            (#"{"lat": 1, "when": "2026-13-73519"}"#, "when"),
            (#"{"lat": 1, "items": [{"n": 1}, {"n": "73519"}]}"#, "items[1].n"),
            (#"{"lat": 1, "items": [{"n": 1}, {"m": 73519}]}"#, "items[1].n"),
            (#"{"lat": 735.19"#, nil),
            (#"{"lat": 73519 "count": 1}"#, nil),
            (#"{lat: 73519}"#, nil),
            (#"{"lat": tru73519}"#, nil),
            ("lat=73519&lon=1", nil),
            ("73519", nil),
            ("[73519]", nil),
            (#"{"lat": null, "count": 73519}"#, "lat"),
            (#"{"count": 73519}"#, "lat"),
        ]
        for (body, field) in cases {
            let reply = await router.handle([Array("probe".utf8), metadataJSON, Array(body.utf8)])
            #expect(String(decoding: reply[0], as: UTF8.self) == "invalid_argument", "\(body)")
            let text = String(decoding: reply[1], as: UTF8.self)
            #expect(!text.contains("73519") && !text.contains("3519") && !text.contains("735"), "\(body) → \(text)")
            let error = try? Wire.makeDecoder().decode(ServiceError.self, from: Data(reply[1]))
            #expect(error?.details?["field"] == field.map { .string($0) }, "\(body) → \(text)")
            // The log line's description of the failure is the same kind of text.
            let failure = Result { try Wire.makeDecoder().decode(Probe.Request.self, from: Data(body.utf8)) }
            if case .failure(let cause) = failure {
                let logged = SafeErrorDescription.of(cause)
                #expect(!logged.contains("3519") && !logged.contains("735"), "\(body) → \(logged)")
            } else {
                Issue.record("\(body) decoded")
            }
        }
        // A type's own ServiceError is passed on as it is.
        struct Checked: Decodable {
            init(from decoder: any Decoder) throws { throw ServiceError.invalidArgument("no", field: "own") }
        }
        let own = Result { () throws(ServiceError) in try Wire.decodePayload(Checked.self, from: Array("{}".utf8)) }
        if case .failure(let error) = own { #expect(error.details?["field"] == "own") } else { Issue.record("decoded") }
    }

    @Test("a request whose deadline has passed is not run")
    func expiredDeadline() async throws {
        let router = Self.router()
        let past = RequestMetadata(requestId: "old", deadline: Int64(Date().timeIntervalSince1970 * 1000) - 1000)
        let reply = await router.handle(
            try Wire.encodeRequest(operation: "greet", metadata: past, payload: Greet.Request(name: "x", times: 1)))
        #expect(String(decoding: reply[0], as: UTF8.self) == "deadline_exceeded")
    }

    @Test("calling a service with no worker and no broker maps to `unavailable`")
    func unavailable() async throws {
        let client = Harness.client("tcp://127.0.0.1:1")
        try await Harness.withRunning([client]) {
            do {
                _ = try await BusClient(client: client).call(
                    Greet.self, on: ServiceName("greeter"), .init(name: "x", times: 1), metadata: metadata,
                    timeout: .milliseconds(200))
                Issue.record("must throw")
            } catch let error as ServiceError {
                #expect(error.code == .unavailable)
                #expect(error.code.httpStatus == 503)
            }
        }
    }

    @Test("every error code maps to the HTTP status of docs/design.md (and the README's two conditional-request codes)")
    func httpStatuses() {
        let expected: [ErrorCode: Int] = [
            .invalidArgument: 400, .unauthenticated: 401, .paymentRequired: 402, .permissionDenied: 403, .notFound: 404,
            .methodNotAllowed: 405, .conflict: 409,
            .alreadyExists: 409, .preconditionFailed: 412, .failedPrecondition: 422, .locked: 423,
            .preconditionRequired: 428, .rateLimited: 429, .unavailable: 503,
            .deadlineExceeded: 504, .internal: 500,
        ]
        for code in ErrorCode.all { #expect(code.httpStatus == expected[code], "\(code)") }
        #expect(ErrorCode(rawValue: "something_new").httpStatus == 500)
    }
}
