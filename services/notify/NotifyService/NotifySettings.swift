import ServiceKit

/// The settings the notify service reads (besides every worker's).
public enum NotifySettings {
    static let smtpHost = Setting("SMTP_HOST", default: "127.0.0.1", "the SMTP relay (none: e-mail is dead-lettered)")
    static let smtpPort = Setting("SMTP_PORT", default: "2525", "the SMTP relay's port")
    static let smtpUsername = Setting("SMTP_USERNAME", default: nil, "AUTH user at the relay (unset: no AUTH)")
    static let smtpPassword = Setting("SMTP_PASSWORD", default: nil, "AUTH password at the relay", secret: true)
    static let smtpStartTLS = Setting(
        "SMTP_STARTTLS", default: "auto", "auto (when offered), required, or off")
    static let smtpCAFile = Setting(
        "SMTP_TLS_CA_FILE", default: nil, "PEM file of CA certificates to trust for STARTTLS (default: the system's)")
    static let smtpVerify = Setting(
        "SMTP_TLS_VERIFY", default: "true", "check the relay's certificate (false only for a local test relay)")
    static let smtpConnections = Setting(
        "SMTP_CONNECTIONS", default: "4", "SMTP sessions one replica uses in parallel")
    static let pushConcurrency = Setting(
        "PUSH_CONCURRENCY", default: "32", "push requests one replica has in flight at once")
    static let mailFrom = Setting("MAIL_FROM", default: "no-reply@backplane.local", "the sender address of every mail")
    static let apnsEndpoint = Setting(
        "APNS_ENDPOINT", default: "https://api.push.apple.com", "APNs base URL for devices registered as production")
    static let apnsSandboxEndpoint = Setting(
        "APNS_SANDBOX_ENDPOINT", default: "https://api.sandbox.push.apple.com",
        "APNs base URL for devices registered with apnsEnvironment sandbox (development builds)")
    static let apnsTeamId = Setting("APNS_TEAM_ID", default: nil, "Apple team id (unset: no APNs)")
    static let apnsKeyId = Setting(
        "APNS_KEY_ID", default: nil, "id of the APNs auth key (.p8); one key serves every app")
    static let apnsKeyFile = Setting(
        "APNS_KEY_FILE", default: nil, "path of the APNs auth key, PEM (.p8); a secret, keep it mode 0600")
    static let apnsTopics = Setting(
        "APNS_TOPICS", default: nil,
        "each app's bundle id (apns-topic) by the device's app: navup=com.x.navup,... (unset: app.<app> for each app)")
    static let apnsTopic = Setting(
        "APNS_TOPIC", default: nil,
        "bundle id for iOS devices registered without an app (unset: they are not pushed; counted as NoTopic)")
    static let fcmEndpoint = Setting("FCM_ENDPOINT", default: "https://fcm.googleapis.com", "FCM base URL")
    static let fcmServiceAccountFile = Setting(
        "FCM_SERVICE_ACCOUNT_FILE", default: nil,
        "path of the Google service-account key (JSON) that signs FCM token requests; a secret (unset: no FCM)")
    static let fcmProject = Setting(
        "FCM_PROJECT_ID", default: nil, "Firebase project of all five apps (default: the key file's project_id)")
    static let fcmToken = Setting(
        "FCM_ACCESS_TOKEN", default: nil,
        "tests and local push sinks only: a fixed access token used when no FCM_SERVICE_ACCOUNT_FILE is set",
        secret: true)
    static let metricsHost = Setting(
        "METRICS_HOST", default: "127.0.0.1", "address of this replica's Prometheus /metrics (0.0.0.0 in containers)")
    static let metricsPort = Setting(
        "METRICS_PORT", default: "0",
        "port of this replica's Prometheus /metrics, e.g. the push configuration-error counter (0: none)")
    static let deliveryBatch = Setting("DELIVERY_BATCH", default: "64", "delivery jobs one replica claims at once")
    static let deliveryPoll = Setting(
        "DELIVERY_POLL_MS", default: "200", "how often an idle replica looks for due deliveries, in ms")
    static let deliveryAttempts = Setting(
        "DELIVERY_MAX_ATTEMPTS", default: "8", "attempts per e-mail or push before it is dead-lettered")
    static let deliveryBackoff = Setting(
        "DELIVERY_BACKOFF_MS", default: "2000", "first retry delay in ms; doubles per attempt, at most 10 minutes")
    static let deliveryLease = Setting(
        "DELIVERY_LEASE_MS", default: "120000",
        "how long a claimed delivery is held; a replica that dies holding one frees it after this, in ms")
    static let schedulerPoll = Setting(
        "SCHEDULER_POLL_MS", default: "250", "how often each replica fires due schedules, in ms")

    /// All of them, for `--help`.
    public static let all = [
        smtpHost, smtpPort, smtpUsername, smtpPassword, smtpStartTLS, smtpCAFile, smtpVerify, smtpConnections,
        pushConcurrency, mailFrom, apnsEndpoint, apnsSandboxEndpoint, apnsTeamId, apnsKeyId, apnsKeyFile, apnsTopics,
        apnsTopic, fcmEndpoint, fcmServiceAccountFile, fcmProject, fcmToken,
        metricsHost, metricsPort, deliveryBatch, deliveryPoll, deliveryAttempts, deliveryBackoff, deliveryLease,
        schedulerPoll,
    ]
}
