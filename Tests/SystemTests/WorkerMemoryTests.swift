import AuthContract
import Contract
import Foundation
import Logging
import Majordomo
import ServiceKit
import Testing
import ZeroMQ

/// A service process must not keep anything per request it has answered: a worker that held on
/// to each finished request grows without bound under steady traffic.
@Suite("service memory under steady traffic (real processes)", .serialized)
struct WorkerMemoryTests {
    /// Resident memory of a process, from `/proc/<pid>/status`, in KiB.
    static func residentKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    /// Sends `count` JWKS requests, `parallel` at a time, and checks each answer.
    static func send(_ count: Int, parallel: Int, bus: BusClient) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<parallel {
                group.addTask {
                    for index in stride(from: lane, to: count, by: parallel) {
                        let reply = try await bus.call(
                            Auth.JWKS.self, Empty(), metadata: RequestMetadata(requestId: "memory-\(index)"),
                            timeout: .seconds(30))
                        guard !reply.keys.isEmpty else { throw ServiceError(.internal, "no keys in reply \(index)") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("auth answers 30,000 requests without its resident memory growing with them")
    func flatUnderTraffic() async throws {
        let system = try SystemHarness()
        try system.start("broker")
        let auth = try system.start("auth")
        defer { _ = system.stopBlocking() }
        var logger = Logger(label: "memory-test")
        logger.logLevel = .error
        let brokerURL = try #require(system.environment["BROKER_URL"])
        let client = try #require(MajordomoClient(endpoint: brokerURL, logger: logger))
        let running = Task { try await client.run() }
        defer {
            client.stop()
            running.cancel()
        }
        let bus = BusClient(client: client, defaultTimeout: .seconds(30))

        // Until auth answers (it migrates first), then a warm-up that lets the allocator and the
        // pools reach their working size.
        let deadline = Date().addingTimeInterval(90)
        while (try? await bus.call(Auth.JWKS.self, Empty(), metadata: RequestMetadata(requestId: "ready"))) == nil {
            guard Date() < deadline else { Issue.record("auth did not answer: \(system.logs())"); return }
            try await Task.sleep(for: .milliseconds(200))
        }
        try await Self.send(3_000, parallel: 64, bus: bus)
        let before = try Self.residentKiB(auth.processIdentifier)
        try await Self.send(30_000, parallel: 64, bus: bus)
        let after = try Self.residentKiB(auth.processIdentifier)
        // Keeping each finished request (about 2 KiB each with its task) would add some 60 MiB.
        #expect(after - before < 16 * 1024, "auth grew from \(before) KiB to \(after) KiB over 30,000 requests")
    }
}
