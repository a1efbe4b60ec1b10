import Contract
import Foundation
import ServiceKit

/// The gateway's settings, read from the environment.
public struct GatewaySettings: Sendable {
    static let host = Setting("HTTP_HOST", default: "127.0.0.1", "address to listen on (0.0.0.0 in containers)")
    static let port = Setting("HTTP_PORT", default: "8080", "HTTP port")
    static let readinessServices = Setting(
        "READINESS_SERVICES", default: "auth,orders,printing,routing,notify",
        "services /readyz requires to answer their health operation (comma-separated)")
    static let readinessTimeout = Setting(
        "READINESS_TIMEOUT_MS", default: "2000", "how long /readyz waits for each check, in ms")

    /// Every setting, for `--help`.
    public static let all: [Setting] = [
        .logLevel, .logFormat, host, port, .brokerURL, .requestTimeout, readinessServices, readinessTimeout,
    ]

    /// Where to listen.
    public var host: String
    /// The port to listen on (0: any free port).
    public var port: Int
    /// The broker's MDP endpoint.
    public var brokerURL: String
    /// Deadline for a call to a service.
    public var requestTimeout: Duration
    /// What `/readyz` checks.
    public var readinessServices: [ServiceName]
    /// Deadline for each readiness check.
    public var readinessTimeout: Duration

    /// Reads the settings.
    public init(_ environment: ProcessEnvironment) throws {
        host = try environment.required(Self.host)
        port = try environment.int(Self.port, in: 0...65535)
        brokerURL = try environment.required(.brokerURL)
        requestTimeout = .milliseconds(try environment.int(.requestTimeout, in: 1...3_600_000))
        readinessServices = try environment.required(Self.readinessServices).split(separator: ",")
            .map { ServiceName(String($0).trimmingCharacters(in: .whitespaces)) }.filter { !$0.rawValue.isEmpty }
        readinessTimeout = .milliseconds(try environment.int(Self.readinessTimeout, in: 1...60_000))
    }
}
