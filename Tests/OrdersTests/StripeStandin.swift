import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport

/// The Stripe stand-in (`deploy/stripe-standin/standin.py`) as a process on a free port.
final class StripeStandin: Sendable {
    let process: Process
    let port: Int
    let log: URL
    static let apiKey = "sk_test_standin"


    var baseURL: String { "http://127.0.0.1:\(port)" }

    init() async throws {
        try TestLayers.requireProcesses()
        port = try TestPorts.free()
        (process, log) = try await PythonStandin.start(
            "stripe-standin", port: port, environment: ["STANDIN_API_KEY": Self.apiKey], banner: "stripe-standin on")
    }

    /// POSTs `body` to the stand-in's control API and returns the JSON answer.
    @discardableResult
    func control(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: "\(baseURL)/_standin/\(path)")
        request.method = .POST
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let data = try await response.body.collect(upTo: 1 << 24)
        return (try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any]) ?? [:]
    }

    /// The stand-in's `/_standin/<path>` answer.
    func read(_ path: String) async throws -> [String: Any] {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(baseURL)/_standin/\(path)"), timeout: .seconds(10))
        let data = try await response.body.collect(upTo: 1 << 24)
        return (try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any]) ?? [:]
    }

    /// Payment intents by status.
    func intents() async throws -> [String: Int] {
        (try await read("stats")["intents"] as? [String: Int]) ?? [:]
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }

    /// Runs `body` with a stand-in, stopped afterwards whatever happens.
    static func with<T>(_ body: (StripeStandin) async throws -> T) async throws -> T {
        let standin = try await StripeStandin()
        do {
            let result = try await body(standin)
            standin.stop()
            return result
        } catch {
            standin.stop()
            throw error
        }
    }
}
