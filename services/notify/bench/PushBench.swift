import AsyncHTTPClient
import Contract
import Foundation
import NotifyContract
import NotifyService

/// Push to a local FCM-like server (`notify-bench fcm-sink`, a separate process): `count`
/// reminders to as many users with one Android device each.
struct PushBench {
    var count = 10_000
    var concurrency = 64
    var deliverers = 2
    var batch = 500

    func run() async throws {
        let sink = try Child(CommandLine.arguments[0], ["fcm-sink"])
        defer { sink.stop() }
        guard let port = try sink.waitFor("fcm-sink ready").split(separator: " ").last.flatMap({ Int($0) }) else {
            throw BenchError("the FCM sink did not say its port")
        }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency * deliverers)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await measure(port: port, http: http)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    func measure(port: Int, http: HTTPClient) async throws {
        let directory = BenchDirectory.androidUsers(count)
        try await BenchWorld.with { world in
            let submissions = try directory.contacts.keys.map { user in
                try Submission(
                    id: UUID(), userId: user, email: nil, kind: Notify.Kind.reminder, variables: ["text": "Drink water"]
                )
            }
            try await world.submit(submissions)
            let fcm = FCMClient(
                settings: .init(endpoint: "http://127.0.0.1:\(port)", projectId: "bench"),
                tokens: StaticAccessToken("bench"), http: http)
            var deliverer = Deliverer(
                store: world.store, directory: directory, smtp: nil, mailFrom: "no-reply@backplane.local", apns: nil,
                fcm: fcm, wake: AsyncStream { _ in }, logger: BenchWorld.logger)
            deliverer.batch = batch
            deliverer.pushConcurrency = concurrency
            let started = ContinuousClock.now
            try await drain(deliverer, copies: deliverers)
            let elapsed = seconds(since: started)
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/count")
            request.method = .GET
            let answer = try await http.execute(request, timeout: .seconds(10)).body.collect(upTo: 64)
            let received = String(buffer: answer)
            print(
                "notify-bench push: \(count) pushes in \(String(format: "%.2f", elapsed)) s = "
                    + "\(Int(Double(count) / elapsed)) pushes/s; \(received) received by the FCM-like server "
                    + "(\(deliverers) deliverers x \(concurrency) in flight, batch \(batch), \(buildKind))")
        }
    }
}
