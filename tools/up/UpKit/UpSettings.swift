import Foundation

/// One environment variable backplane-up reads: what `--help` prints and docs/settings.md lists
/// (`--settings-json`, read by deploy/scripts/settings-doc.py). The executables' own settings
/// (docs/settings.md) pass through to the processes as they are.
public struct UpSetting: Sendable, Codable, Equatable {
    public let name: String
    public let `default`: String?
    public let help: String
    public let secret: Bool
    public let formerly: [String]

    init(_ name: String, _ fallback: String?, _ help: String) {
        self.name = name
        self.default = fallback
        self.help = help
        secret = false
        formerly = []
    }
}

extension Up {
    public static let summary = "make up's supervisor: runs Backplane's processes on one machine (deploy/scripts/up.sh runs it)"

    public static let settings: [UpSetting] = [
        UpSetting(
            "SERVICES", nil,
            "which services to run (default: every worker of deploy/services.txt, in its order); the broker and the gateway always run"
        ),
        UpSetting("REPLICAS_<service>", "1", "number of replicas of a service, e.g. REPLICAS_routing=3: routing-1..routing-3"),
        UpSetting(
            "REPLICAS_gateway", "1",
            "number of gateways: gateway-1 on HTTP_PORT, gateway-2 on HTTP_PORT+1, ...; each is a whole gateway (put a balancer in front, or give loadgen several --base-url)"
        ),
        UpSetting("HTTP_PORT", "8080", "gateway port, also where readiness (GET /readyz) is checked"),
        UpSetting(
            "OPERATOR_PORT", "8090",
            "the gateways' operator listener on 127.0.0.1 (OPERATOR_HTTP_PORT: the console at /console, with the API it calls): gateway-1 on OPERATOR_PORT, gateway-2 on OPERATOR_PORT+1, ...; off: no console"
        ),
        UpSetting(
            "ADMIN_PORT_BASE", "9100",
            "first admin port: every process gets its own ADMIN_HTTP_PORT (/healthz, /readyz, /metrics), base+0 for the broker, then each service replica and gateway in start order, shown in its \"started\" line; off: none"
        ),
        UpSetting(
            "TRUSTED_PROXIES", "127.0.0.1,::1",
            "the gateway's setting; make up's default is loopback, so that loadgen can play many clients with X-Forwarded-For; set it empty to rate-limit by the connection's own address"
        ),
        UpSetting(
            "SMTP_SINK", "1",
            "0: do not start the local SMTP sink (it starts with notify unless SMTP_HOST names another relay; mail lands in SMTP_SINK_DIR, port SMTP_PORT or 2525)"
        ),
        UpSetting("SMTP_SINK_DIR", ".data/mail", "the SMTP sink's folder, one .eml file per message"),
        UpSetting(
            "CIVIC_STANDIN", "1",
            "0: do not start the local Open States stand-in (it starts with civic unless CIVIC_FEED_URL names another feed)"),
        UpSetting("CIVIC_STANDIN_PORT", "8095", "the Open States stand-in's port"),
        UpSetting(
            "PAYMENT_PROVIDER", "sandbox",
            "stripe: orders pays through Stripe's API; without STRIPE_BASE_URL the local Stripe stand-in (deploy/stripe-standin) starts with orders, with STRIPE_API_KEY (default sk_test_standin)"
        ),
        UpSetting("STRIPE_STANDIN_PORT", "8096", "the Stripe stand-in's port"),
        UpSetting("STRIPE_STANDIN_DELAY_MS", "0", "milliseconds the Stripe stand-in takes to answer"),
        UpSetting("BACKPLANE_BIN_DIR", ".build/release", "where the executables are"),
        UpSetting("READY_TIMEOUT", "60", "seconds to wait for /readyz"),
        UpSetting(
            "BROKER_READY_TIMEOUT", "15",
            "seconds to wait for the broker to answer `broker --probe` before the services start (after it they start anyway, with a warning)"
        ),
        UpSetting(
            "STOP_TIMEOUT", "45",
            "seconds between SIGTERM and SIGKILL on shutdown: more than the 30 s a process drains for (a second Ctrl-C: at once)"),
        UpSetting(
            "RESTART", "no",
            "no: a process that dies stays down and is reported; always: it is started again after RESTART_DELAY, like docker-compose's `restart: always` (the fault run uses this)"
        ),
        UpSetting("RESTART_DELAY", "1", "seconds before a process that died is started again"),
        UpSetting(
            "REPO_ROOT", nil,
            "the repository, for deploy/services.txt, the stand-ins and the sample files (default: the current folder; up.sh sets it)"
        ),
    ]

    /// `--help`: the summary, the usage and the settings in columns.
    public static var help: String {
        let width = settings.map(\.name.count).max() ?? 0
        let defaultWidth = settings.map { ($0.default ?? "").count }.max() ?? 0
        var lines = [
            "backplane-up: \(summary)", "",
            "Usage: backplane-up [--help] [--settings-json]",
            "  Runs the broker, the services, the local stand-ins and the gateways in the foreground, each",
            "  one's output prefixed by its name; Ctrl-C (SIGINT), SIGTERM or SIGHUP stops them all.", "",
            "Settings (environment variables; default in the middle):",
        ]
        for setting in settings {
            let name = setting.name.padding(toLength: width + 2, withPad: " ", startingAt: 0)
            let fallback = (setting.default ?? "").padding(toLength: defaultWidth + 2, withPad: " ", startingAt: 0)
            lines.append("  \(name)\(fallback)\(setting.help)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--settings-json`: the shape the servers print, for docs/settings.md.
    public static var settingsJSON: String {
        struct Spec: Encodable {
            let name: String
            let summary: String
            let settings: [UpSetting]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(Spec(name: "backplane-up", summary: summary, settings: settings))) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
