import Contract
import Crypto
import Foundation
import NotifyContract
import NotifyService
import Prometheus
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The configuration-error counter as an alert sees it: Prometheus text at a replica's `/metrics`.
@Suite("notify: /metrics", .serialized)
struct MetricsEndpointTests {
    @Test("a push refused for want of a topic shows on /metrics as backplane_notify_push_config_errors_total")
    func configErrorsOnMetrics() async throws {
        let registry = PrometheusCollectorRegistry()
        let port = try freePort()
        let endpoint = MetricsEndpoint(registry: registry, host: "127.0.0.1", port: port, logger: NotifyWorld.logger)
        try await NotifyWorld.with { world in
            let apns = try await APNsClient(
                settings: .init(
                    endpoint: "http://127.0.0.1:1", sandboxEndpoint: "http://127.0.0.1:1", teamId: "TEAM123456",
                    keyId: "KEY1234567", topics: APNsTopics(byApp: ["navup": "com.example.navup"]),
                    privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation), clock: world.clock)
            let directory = FakeDirectory()
            let user = UUID()
            directory.add(user, apps: [("ok-1", "ios", "tapwater", .production), ("ok-2", "ios", "Pirate", .sandbox)])
            var deliverer = Deliverer(
                store: world.store, directory: directory, smtp: nil, mailFrom: "no-reply@backplane.local", apns: apns,
                fcm: nil, wake: AsyncStream { _ in }, logger: NotifyWorld.logger)
            deliverer.metrics = PrometheusMetricsFactory(registry: registry)
            _ = try await world.store.submit(
                Submission(id: UUID(), userId: user, email: nil, kind: Notify.Kind.reminder, variables: ["text": "x"]))
            #expect(try await deliverer.runOnce() == 1)

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await endpoint.run() }
                defer { group.cancelAll() }
                var text = ""
                for _ in 0..<100 {
                    let url = try #require(URL(string: "http://127.0.0.1:\(port)/metrics"))
                    if let (data, _) = try? await URLSession.shared.data(from: url) {
                        text = String(decoding: data, as: UTF8.self)
                        break
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(text.contains("# TYPE backplane_notify_push_config_errors_total counter"), "\(text)")
                #expect(
                    text.contains(#"backplane_notify_push_config_errors_total{app="tapwater",reason="NoTopic"} 1"#),
                    "\(text)")
                #expect(
                    text.contains(#"backplane_notify_push_config_errors_total{app="other",reason="NoTopic"} 1"#),
                    "an app we do not know is `other`, so labels stay few: \(text)")
                #expect(!text.contains("ok-1") && !text.contains("ok-2"), "no push token in a metric")
            }
        }
    }
}
