/// `health`: every service answers it; the gateway's `/readyz` asks each one.
public enum Health: BusOperation {
    public typealias Request = Empty
    public typealias Reply = HealthReport
    public static let name = "health"
}

/// A service's account of itself.
public struct HealthReport: Codable, Hashable, Sendable {
    /// The service name.
    public var service: String
    /// `ok` when every check passed, `degraded` otherwise.
    public var status: String
    /// Which replica answered (host and process id).
    public var instance: String
    /// Seconds since the process started.
    public var uptimeSeconds: Int64
    /// Named checks (`database`, ...) and their outcome (`ok` or why not).
    public var checks: [String: String]

    /// Creates a report.
    public init(service: String, status: String, instance: String, uptimeSeconds: Int64, checks: [String: String]) {
        self.service = service
        self.status = status
        self.instance = instance
        self.uptimeSeconds = uptimeSeconds
        self.checks = checks
    }
}
