import Contract
import Crypto
import CryptoExtras
import Foundation
import Logging
import MetricsTestKit
import NotifyContract
import NotifyService
import Store
import TestSupport
import Testing

/// Push for five apps: each app's APNs topic, sandbox or production per device, configuration
/// errors that keep the token and are counted, and FCM with a service account's own tokens.
@Suite("notify: push for several apps", .serialized)
struct PushAppsTests {
    static let topics = APNsTopics(
        byApp: ["navup": "com.example.navup", "tapwater": "com.example.tapwater", "gifter": "com.example.navup"])

    func deliverer(
        _ world: NotifyWorld, _ directory: FakeDirectory, apns: APNsClient? = nil, fcm: FCMClient? = nil,
        metrics: TestMetrics, logs: CapturedLogs
    ) -> Deliverer {
        var deliverer = Deliverer(
            store: world.store, directory: directory, smtp: nil, mailFrom: "no-reply@backplane.local", apns: apns,
            fcm: fcm, wake: AsyncStream { _ in }, logger: logs.logger())
        deliverer.metrics = metrics
        return deliverer
    }

    func remind(_ world: NotifyWorld, _ user: UUID) async throws -> UUID {
        let reply = try await world.store.submit(
            Submission(id: UUID(), userId: user, email: nil, kind: Notify.Kind.reminder, variables: ["text": "Drink"]))
        return try #require(UUID(uuidString: reply.notificationId))
    }

    @Test(
        "APNs, two apps at once: topic per app, host per device; DeviceTokenNotForTopic kept, counted; Unregistered forgotten"
    )
    func apnsTwoApps() async throws {
        // Tokens are only good for the bundle they were issued for; gifter is set up with navup's.
        let issuedFor = [
            "ok-navup": "com.example.navup", "ok-tapwater-dev": "com.example.tapwater",
            "ok-gifter": "com.example.gifter", "gone-navup": "com.example.navup",
        ]
        let production = FakeProviders(issuedFor: issuedFor)
        let sandbox = FakeProviders(issuedFor: issuedFor)
        try await production.serve { productionBase in
            try await sandbox.serve { sandboxBase in
                try await NotifyWorld.with { world in
                    let apns = try await APNsClient(
                        settings: .init(
                            endpoint: productionBase, sandboxEndpoint: sandboxBase, teamId: "TEAM123456",
                            keyId: "KEY1234567", topics: Self.topics,
                            privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation), clock: world.clock)
                    let directory = FakeDirectory()
                    let user = UUID()
                    directory.add(
                        user,
                        apps: [
                            ("ok-navup", "ios", "navup", .production),
                            ("ok-tapwater-dev", "ios", "tapwater", .sandbox),
                            ("ok-gifter", "ios", "gifter", .production),
                            ("gone-navup", "ios", "navup", .production),
                        ])
                    let metrics = TestMetrics()
                    let logs = CapturedLogs()
                    let deliverer = deliverer(world, directory, apns: apns, metrics: metrics, logs: logs)
                    let id = try await remind(world, user)
                    #expect(try await deliverer.runOnce() == 1)

                    #expect(production.topics.withLock { $0["ok-navup"] } == ["com.example.navup"])
                    #expect(sandbox.topics.withLock { $0["ok-tapwater-dev"] } == ["com.example.tapwater"])
                    #expect(production.count("ok-tapwater-dev") == 0, "a sandbox token never goes to production")
                    #expect(sandbox.count("ok-navup") == 0 && sandbox.count("ok-gifter") == 0)
                    #expect(production.count("ok-gifter") == 1)
                    #expect(directory.forgotten == ["gone-navup"], "only the unregistered token is forgotten")

                    let counted = metrics.counterTotal(
                        label: Deliverer.configErrorsMetric,
                        dimensions: [("app", "gifter"), ("reason", "DeviceTokenNotForTopic")])
                    #expect(counted == 1)
                    let refusal = try #require(logs.all.first { $0.contains("provider configuration") })
                    #expect(refusal.contains("gifter") && refusal.contains("DeviceTokenNotForTopic"))
                    for token in issuedFor.keys {
                        #expect(!logs.all.contains { $0.contains(token) }, "no push token in a log line")
                    }
                    #expect(
                        try await world.outcomes(id, "push").sorted()
                            == ["config_error", "retry", "sent", "sent", "token_removed"])

                    // The configuration error retries the job (an operator may mend the topic);
                    // the devices that got it are not pushed again, gifter's token is still there.
                    world.clock.advance(by: 2)
                    #expect(try await deliverer.runOnce() == 1)
                    #expect(production.count("ok-navup") == 1 && sandbox.count("ok-tapwater-dev") == 1)
                    #expect(production.count("ok-gifter") == 2)
                    #expect(directory.forgotten == ["gone-navup"])
                    let contacts = try await directory.contacts(of: [user])
                    #expect(contacts[user]?.devices.map(\.token).contains("ok-gifter") == true)
                    #expect(
                        metrics.counterTotal(
                            label: Deliverer.configErrorsMetric,
                            dimensions: [("app", "gifter"), ("reason", "DeviceTokenNotForTopic")]) == 2)
                }
            }
        }
    }

    @Test("an iOS device of an app with no topic is not pushed, keeps its token and counts as NoTopic")
    func noTopic() async throws {
        let providers = FakeProviders()
        try await providers.serve { base in
            try await NotifyWorld.with { world in
                let apns = try await APNsClient(
                    settings: .init(
                        endpoint: base, sandboxEndpoint: base, teamId: "TEAM123456", keyId: "KEY1234567",
                        topics: Self.topics, privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation),
                    clock: world.clock)
                let directory = FakeDirectory()
                let user = UUID()
                directory.add(user, apps: [("ok-politimap", "ios", "politimap", .production)])
                let metrics = TestMetrics()
                let deliverer = deliverer(world, directory, apns: apns, metrics: metrics, logs: CapturedLogs())
                _ = try await remind(world, user)
                #expect(try await deliverer.runOnce() == 1)
                #expect(providers.total == 0)
                #expect(directory.forgotten.isEmpty)
                #expect(
                    metrics.counterTotal(
                        label: Deliverer.configErrorsMetric, dimensions: [("app", "politimap"), ("reason", "NoTopic")])
                        == 1)
            }
        }
    }

    @Test("FCM service account: a verified RS256 assertion; the token cached, renewed before expiry as the clock moves")
    func fcmServiceAccount() async throws {
        try await NotifyWorld.with { world in
            let google = try GoogleStandIn(clock: world.clock)
            let providers = FakeProviders(google: google)
            try await providers.serve { base in
                let tokens = try await ServiceAccountTokens(account: google.account(base: base), clock: world.clock)
                let fcm = FCMClient(settings: .init(endpoint: base, projectId: "backplane-test"), tokens: tokens)
                let directory = FakeDirectory()
                let user = UUID()
                directory.add(
                    user,
                    apps: [("ok-android", "android", "navup", .production), ("gone-web", "web", "gifter", .production)])
                let logs = CapturedLogs()
                let deliverer = deliverer(world, directory, fcm: fcm, metrics: TestMetrics(), logs: logs)

                let first = try await remind(world, user)
                #expect(try await deliverer.runOnce() == 1)
                #expect(google.refusals.withLock { $0 } == [])
                #expect(google.exchanges == 1, "one exchange for the two pushes")
                #expect(providers.count("ok-android") == 1)
                #expect(directory.forgotten == ["gone-web"])
                #expect(try await world.outcomes(first, "push").sorted() == ["sent", "token_removed"])

                // 50 minutes on: the token has 10 minutes left, more than the 5-minute margin.
                world.clock.advance(by: 3000)
                _ = try await remind(world, user)
                #expect(try await deliverer.runOnce() == 1)
                #expect(google.exchanges == 1, "the cached token is reused")
                #expect(providers.count("ok-android") == 2)

                // 56m40s on: under 5 minutes left, so it is renewed while the old one still works.
                world.clock.advance(by: 400)
                let old = try #require(google.issued.withLock { $0.first?.token })
                #expect(google.authorizes("Bearer \(old)"), "the old token has not expired yet")
                let third = try await remind(world, user)
                #expect(try await deliverer.runOnce() == 1)
                #expect(google.exchanges == 2)
                #expect(providers.count("ok-android") == 3)
                #expect(try await world.outcomes(third, "push") == ["sent"])
                let fresh = try #require(google.issued.withLock { $0.last?.token })
                #expect(providers.authorizations.withLock { $0 } == ["Bearer \(old)", "Bearer \(fresh)"])
                for token in [old, fresh, "ok-android", "gone-web"] {
                    #expect(!logs.all.contains { $0.contains(token) }, "no token in a log line")
                }
            }
        }
    }

    @Test("FCM: a key the token endpoint refuses is a configuration error: token kept, counted, not re-asked at once")
    func fcmWrongKey() async throws {
        try await NotifyWorld.with { world in
            let google = try GoogleStandIn(clock: world.clock)
            let providers = FakeProviders(google: google)
            try await providers.serve { base in
                let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
                let tokens = try await ServiceAccountTokens(
                    account: google.account(base: base, key: stranger), clock: world.clock)
                let fcm = FCMClient(settings: .init(endpoint: base, projectId: "backplane-test"), tokens: tokens)
                let directory = FakeDirectory()
                let user = UUID()
                directory.add(user, apps: [("ok-android", "android", "tapwater", .production)])
                let metrics = TestMetrics()
                let deliverer = deliverer(world, directory, fcm: fcm, metrics: metrics, logs: CapturedLogs())
                let id = try await remind(world, user)
                #expect(try await deliverer.runOnce() == 1)
                #expect(google.refusals.withLock { $0.count } == 1 && google.exchanges == 0)
                #expect(providers.count("ok-android") == 0)
                #expect(directory.forgotten.isEmpty)
                #expect(
                    metrics.counterTotal(
                        label: Deliverer.configErrorsMetric,
                        dimensions: [("app", "tapwater"), ("reason", "OAuth invalid_grant")]) == 1)
                #expect(try await world.outcomes(id, "push") == ["config_error", "retry"])
                // The refusal is remembered for 30 s: the retry 2 s later does not ask again.
                world.clock.advance(by: 2)
                #expect(try await deliverer.runOnce() == 1)
                #expect(google.refusals.withLock { $0.count } == 1)
                #expect(
                    metrics.counterTotal(
                        label: Deliverer.configErrorsMetric,
                        dimensions: [("app", "tapwater"), ("reason", "OAuth invalid_grant")]) == 2)
            }
        }
    }
}
