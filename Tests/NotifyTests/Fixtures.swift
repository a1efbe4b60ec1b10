import Foundation
import Glibc
import Hummingbird
import NIOCore
import Synchronization
import TestSupport
import Testing

/// The Python SMTP sink (`deploy/smtp-sink/smtp_sink.py`, aiosmtpd) on a free port, storing
/// messages under a temporary directory.
final class SMTPSink: Sendable {
    let process: Process
    let port: Int
    let directory: URL

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/smtp-sink/smtp_sink.py")
    }

    init(arguments: [String] = []) async throws {
        port = try freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("notify-mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("sink.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", Self.script.path, "--port", "\(port)", "--dir", directory.appendingPathComponent("mail").path]
            + arguments
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.process = process
        for _ in 0..<100 {
            if (try? String(contentsOf: log, encoding: .utf8))?.contains("ready") == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw FixtureError("the SMTP sink did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    /// The stored messages (file name → content).
    func messages() -> [String: String] {
        let dir = directory.appendingPathComponent("mail")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        var found: [String: String] = [:]
        for name in names where name.hasSuffix(".eml") {
            found[name] = try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
        }
        return found
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A self-signed certificate for 127.0.0.1 (cert, key) made with openssl.
    static func certificate(in directory: URL) throws -> (cert: String, key: String) {
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
            "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", key, "-out", cert,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError("openssl failed") }
        return (cert, key)
    }
}

/// Local HTTP servers that answer like APNs and FCM, by token prefix: `ok-` 200, `gone-` APNs
/// 410 / FCM UNREGISTERED, `bad-` APNs 400 BadDeviceToken / FCM INVALID_ARGUMENT, `busy-` 429 on
/// the first request then 200. A token listed in `issuedFor` is only good for that APNs topic
/// (`DeviceTokenNotForTopic` otherwise); with `google`, FCM wants one of its access tokens
/// (401 otherwise) and `POST /token` is its token endpoint.
final class FakeProviders: Sendable {
    let received = Mutex<[String: Int]>([:])
    let authorizations = Mutex<Set<String>>([])
    /// The `apns-topic` of each APNs request, by token.
    let topics = Mutex<[String: [String]]>([:])
    let issuedFor: [String: String]
    let google: GoogleStandIn?
    let base = Mutex<String?>(nil)

    init(issuedFor: [String: String] = [:], google: GoogleStandIn? = nil) {
        self.issuedFor = issuedFor
        self.google = google
    }

    func count(_ token: String) -> Int { received.withLock { $0[token] ?? 0 } }
    var total: Int { received.withLock { $0.values.reduce(0, +) } }

    func answer(token: String, apns: Bool) -> (HTTPResponse.Status, String) {
        let seen = received.withLock { counts -> Int in
            counts[token, default: 0] += 1
            return counts[token]!
        }
        if token.hasPrefix("gone-") {
            return apns
                ? (.gone, #"{"reason":"Unregistered","timestamp":1}"#)
                : (.notFound, #"{"error":{"code":404,"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}"#)
        }
        if token.hasPrefix("bad-") {
            return apns
                ? (.badRequest, #"{"reason":"BadDeviceToken"}"#)
                : (.badRequest, #"{"error":{"code":400,"status":"INVALID_ARGUMENT"}}"#)
        }
        if token.hasPrefix("busy-") && seen == 1 { return (.tooManyRequests, #"{"reason":"TooManyRequests"}"#) }
        return (.ok, apns ? "" : #"{"name":"projects/p/messages/1"}"#)
    }

    /// Runs the server until `body` returns; `body` gets the base URL.
    func serve(_ body: @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        router.post("/3/device/:token") { request, context -> Response in
            let token = try context.parameters.require("token")
            if let auth = request.headers[.authorization] { self.authorizations.withLock { _ = $0.insert(auth) } }
            let topic = request.headers.first { $0.name.canonicalName == "apns-topic" }?.value ?? ""
            self.topics.withLock { $0[token, default: []].append(topic) }
            if let wanted = self.issuedFor[token], wanted != topic {
                self.received.withLock { $0[token, default: 0] += 1 }
                return Response(
                    status: .badRequest,
                    body: .init(byteBuffer: ByteBuffer(string: #"{"reason":"DeviceTokenNotForTopic"}"#)))
            }
            let (status, text) = self.answer(token: token, apns: true)
            return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        router.post("/token") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 65536)
            guard let google = self.google, let base = self.base.withLock({ $0 }) else {
                return Response(status: .notFound)
            }
            let (status, text) = await google.exchange(
                form: String(buffer: body), tokenURI: "\(base)/token")
            return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        router.post("/v1/projects/:project/messages:send") { request, context -> Response in
            if let google = self.google, !google.authorizes(request.headers[.authorization]) {
                let text = #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#
                return Response(status: .unauthorized, body: .init(byteBuffer: ByteBuffer(string: text)))
            }
            if let auth = request.headers[.authorization] { self.authorizations.withLock { _ = $0.insert(auth) } }
            let body = try await request.body.collect(upTo: 65536)
            let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
            let token = ((json?["message"] as? [String: Any])?["token"] as? String) ?? ""
            let (status, text) = self.answer(token: token, apns: false)
            return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let port = Mutex<Int?>(nil)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            defer { group.cancelAll() }
            var bound: Int?
            for _ in 0..<100 where bound == nil {
                bound = port.withLock { $0 }
                if bound == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            let url = "http://127.0.0.1:\(try #require(bound))"
            self.base.withLock { $0 = url }
            try await body(url)
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A loopback port for a listener a test starts (``TestPorts``).
func freePort() throws -> Int { try TestPorts.free() }
