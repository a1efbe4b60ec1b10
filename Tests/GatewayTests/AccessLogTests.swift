import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Majordomo
import Prometheus
import Testing

@testable import GatewayService
@testable import ServiceKit

/// The access log: one `http` line per request, written straight to the JSON handler.
@Suite("gateway: access log")
struct AccessLogTests {
    @Test("durations are milliseconds with two decimals, rounded down, never negative")
    func milliseconds() {
        typealias Middleware = RequestIDMiddleware<GatewayRequestContext>
        #expect(Middleware.milliseconds(.zero) == "0.00")
        #expect(Middleware.milliseconds(.microseconds(70)) == "0.07")
        #expect(Middleware.milliseconds(.microseconds(12_509)) == "12.50")
        #expect(Middleware.milliseconds(.milliseconds(1_005)) == "1005.00")
        #expect(Middleware.milliseconds(.seconds(2) + .microseconds(30)) == "2000.03")
        #expect(Middleware.milliseconds(.microseconds(-5)) == "0.00")
    }

    @Test("each request's line names method, redacted path, status, duration, request id and the client's trace")
    func lines() async throws {
        // The lines go to a file through the same buffered output the process's standard output uses.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("access-\(UUID()).log").path
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        let output = LogOutput(fileDescriptor: descriptor)
        let logger = Logger(label: "gateway") { _ in JSONLogHandler(label: "gateway", level: .info, output: output) }
        let settings = try GatewaySettings(
            ProcessEnvironment(["BROKER_URL": "tcp://127.0.0.1:1", "READINESS_SERVICES": "alpha", "HTTP_PORT": "0"]))
        let client = try #require(MajordomoClient(endpoint: "tcp://127.0.0.1:1", logger: GatewayTests.logger))
        let app = try Gateway.buildApplication(
            settings: settings, bus: BusClient(client: client), logger: logger,
            services: [client])
        let trace = "4bf92f3577b34da6a3ce929d0e0e4736"
        let ids = try await app.test(.router) { client in
            let healthy = try await client.execute(uri: "/healthz", method: .get)
            #expect(healthy.status == .ok)
            let first = try #require(healthy.headers[HTTPField.Name("X-Request-Id")!])
            let missing = try await client.execute(
                uri: "/v1/ecards/a-share-token-nobody-may-read", method: .get,
                headers: [HTTPField.Name("traceparent")!: "00-\(trace)-00f067aa0ba902b7-01"])
            return [first, try #require(missing.headers[HTTPField.Name("X-Request-Id")!])]
        }
        output.flush()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])
        }.filter { $0["msg"] == "http" }
        try #require(lines.count == 2, "\(text)")
        #expect(lines[0]["service"] == "gateway" && lines[0]["level"] == "info")
        #expect(lines[0]["method"] == "GET" && lines[0]["path"] == "/healthz" && lines[0]["status"] == "200")
        #expect(lines[0]["requestId"] == ids[0] && lines[0]["traceId"] == nil)
        #expect(lines[0]["ms"]?.wholeMatch(of: /[0-9]+\.[0-9]{2}/) != nil)
        #expect(lines[1]["path"] == "/v1/ecards/{}" && lines[1]["requestId"] == ids[1] && lines[1]["traceId"] == trace)
        #expect(lines[1]["status"] != "200")
        #expect(!text.contains("a-share-token-nobody-may-read"))
    }
}
