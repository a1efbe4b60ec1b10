import AuthContract
import Contract
import Foundation
import NIOSSL
import NotifyContract
import Prometheus
import ServiceKit
import ServiceLifecycle
import Store

/// The `notify` service: e-mail, push and in-app notifications.
public enum NotifyService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "notify",
        summary: "MDP worker for e-mail, push and in-app notifications",
        settings: WorkerHost.settings + NotifySettings.all,
        probeHelp: "check that a notify worker answers its health operation through the broker")

    /// The migrations shipped with the service (`Migrations/NNNN_name.sql`).
    public static func migrations() throws -> [Migration] {
        guard let url = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ServiceError(.internal, "the notify service's Migrations folder is missing from its resources")
        }
        return try Migration.load(from: url)
    }

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .notify, migrations: migrations) { router, resources in
        let env = resources.environment
        let backoff = Backoff(base: Double(try env.int(NotifySettings.deliveryBackoff, in: 1...600_000)) / 1000)
        let queue = JobQueue(
            client: resources.database.client, schema: "notify", clock: resources.clock, backoff: backoff,
            logger: resources.logger)
        var store = NotificationStore(
            client: resources.database.client, queue: queue, clock: resources.clock, logger: resources.logger)
        store.maxAttempts = try env.int(NotifySettings.deliveryAttempts, in: 1...100)
        let schedules = ScheduleStore(notifications: store, logger: resources.logger)
        let (wake, nudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (composeWake, composeNudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let smtp = try smtpClient(resources)
        let apnsProvider = try await apns(resources)
        let fcmProvider = try await fcm(resources)
        var deliverer = Deliverer(
            store: store, directory: AuthDirectoryClient(bus: resources.bus), smtp: smtp,
            mailFrom: try env.required(NotifySettings.mailFrom), apns: apnsProvider, fcm: fcmProvider,
            wake: wake, logger: resources.logger)
        deliverer.batch = try env.int(NotifySettings.deliveryBatch, in: 1...1000)
        deliverer.smtpConnections = try env.int(NotifySettings.smtpConnections, in: 1...64)
        deliverer.pushConcurrency = try env.int(NotifySettings.pushConcurrency, in: 1...512)
        deliverer.lease = Double(try env.int(NotifySettings.deliveryLease, in: 1000...3_600_000)) / 1000
        deliverer.pollInterval = .milliseconds(try env.int(NotifySettings.deliveryPoll, in: 5...60_000))
        deliverer.attachments = ECardImageClient.overBus(resources.bus)
        deliverer.knownApps.formUnion(try apnsTopics(env).byApp.keys)
        let publisher = try resources.publisher()
        deliverer.events = publisher
        var metrics: [any Service] = []
        let metricsPort = try env.int(NotifySettings.metricsPort, in: 0...65535)
        if metricsPort != 0 {
            let registry = PrometheusCollectorRegistry()
            deliverer.metrics = PrometheusMetricsFactory(registry: registry)
            metrics.append(
                MetricsEndpoint(
                    registry: registry, host: try env.required(NotifySettings.metricsHost), port: metricsPort,
                    logger: resources.logger))
        }
        let triggers = Triggers(store: store, logger: resources.logger)
        register(
            notifications: NotificationHandler(store: store) { nudge.yield() },
            schedules: ScheduleHandler(schedules: schedules), on: &router)
        let scheduler = Scheduler(
            schedules: schedules,
            pollInterval: .milliseconds(try env.int(NotifySettings.schedulerPoll, in: 5...60_000)),
            logger: resources.logger
        ) {
            nudge.yield()
            composeNudge.yield()
        }
        let composer = Composer(
            store: store, texts: .overBus(resources.bus), wake: composeWake, logger: resources.logger
        ) { nudge.yield() }
        let authConsumer = try resources.consumer(
            name: "notify.auth", topics: Triggers.authTopics,
            inTransaction: { event, tx in
                try await triggers.handle(event, in: tx)
                nudge.yield()
            })
        let serviceConsumer = try resources.consumer(
            name: "notify.services", topics: Triggers.serviceTopics,
            inTransaction: { event, tx in
                try await triggers.handle(event, in: tx)
                nudge.yield()
            })
        return [publisher.service, deliverer, scheduler, composer, authConsumer, serviceConsumer] + metrics
    }

    static func smtpClient(_ resources: WorkerResources) throws -> SMTPClient? {
        let env = resources.environment
        guard let host = env.string(NotifySettings.smtpHost), host != "none" else { return nil }
        guard let mode = SMTPSettings.StartTLS(rawValue: try env.required(NotifySettings.smtpStartTLS)) else {
            throw ServiceError.invalidArgument("SMTP_STARTTLS must be auto, required or off")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = env.string(NotifySettings.smtpCAFile) { tls.trustRoots = .file(file) }
        if !(try env.bool(NotifySettings.smtpVerify)) { tls.certificateVerification = .none }
        let settings = SMTPSettings(
            host: host, port: try env.int(NotifySettings.smtpPort, in: 1...65535),
            username: env.string(NotifySettings.smtpUsername), password: env.string(NotifySettings.smtpPassword),
            startTLS: mode, tls: tls)
        return SMTPClient(settings: settings, logger: resources.logger)
    }

    static func apnsTopics(_ env: ProcessEnvironment) throws -> APNsTopics {
        try APNsTopics(
            parsing: env.string(NotifySettings.apnsTopics) ?? APNsTopics.defaultSetting,
            withoutApp: env.string(NotifySettings.apnsTopic))
    }

    static func apns(_ resources: WorkerResources) async throws -> APNsClient? {
        let env = resources.environment
        guard let team = env.string(NotifySettings.apnsTeamId) else { return nil }
        guard let keyId = env.string(NotifySettings.apnsKeyId), let file = env.string(NotifySettings.apnsKeyFile) else {
            throw ServiceError.invalidArgument("APNS_TEAM_ID needs APNS_KEY_ID and APNS_KEY_FILE too")
        }
        let pem = try String(contentsOfFile: file, encoding: .utf8)
        let topics = try apnsTopics(env)
        resources.logger.info(
            "APNs configured",
            metadata: [
                "topics": "\(topics.byApp.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })",
                "withoutApp": "\(topics.withoutApp ?? "-")",
            ])
        return try await APNsClient(
            settings: .init(
                endpoint: try env.required(NotifySettings.apnsEndpoint),
                sandboxEndpoint: try env.required(NotifySettings.apnsSandboxEndpoint), teamId: team, keyId: keyId,
                topics: topics, privateKeyPEM: pem), clock: resources.clock)
    }

    /// FCM with a service account's tokens; with only `FCM_ACCESS_TOKEN` (local sinks), that token.
    static func fcm(_ resources: WorkerResources) async throws -> FCMClient? {
        let env = resources.environment
        let endpoint = try env.required(NotifySettings.fcmEndpoint)
        if let file = env.string(NotifySettings.fcmServiceAccountFile) {
            let account = try GoogleServiceAccount(contentsOfFile: file)
            let project = env.string(NotifySettings.fcmProject) ?? account.projectId
            resources.logger.info(
                "FCM configured", metadata: ["project": "\(project)", "serviceAccount": "\(account.clientEmail)"])
            return FCMClient(
                settings: .init(endpoint: endpoint, projectId: project),
                tokens: try await ServiceAccountTokens(account: account, clock: resources.clock))
        }
        guard let token = env.string(NotifySettings.fcmToken) else { return nil }
        guard let project = env.string(NotifySettings.fcmProject) else {
            throw ServiceError.invalidArgument("FCM_ACCESS_TOKEN needs FCM_PROJECT_ID too")
        }
        resources.logger.warning("FCM with a fixed FCM_ACCESS_TOKEN: for local push sinks only, it is not renewed")
        return FCMClient(settings: .init(endpoint: endpoint, projectId: project), tokens: StaticAccessToken(token))
    }

    /// Registers the service's operations.
    public static func register(
        notifications: NotificationHandler, schedules: ScheduleHandler, on router: inout OperationRouter
    ) {
        router.register(Notify.Send.self) { try await notifications.send($0, $1) }
        router.register(Notify.ListInbox.self) { try await notifications.inbox($0, $1) }
        router.register(Notify.MarkRead.self) { try await notifications.markRead($0, $1) }
        router.register(Notify.GetPreferences.self) { try await notifications.preferences($1) }
        router.register(Notify.SetPreferences.self) { try await notifications.setPreferences($0, $1) }
        router.register(Notify.ListSchedules.self) { try await schedules.list($0, $1) }
        router.register(Notify.CreateSchedule.self) { try await schedules.create($0, $1) }
        router.register(Notify.DeleteSchedule.self) { try await schedules.delete($0, $1) }
        router.register(Notify.ListDeliveries.self) { try await notifications.deliveries($1) }
    }
}
