import NIOSSL

/// Where and how notify hands mail to an SMTP relay.
public struct SMTPSettings: Sendable {
    /// When to upgrade the connection with STARTTLS.
    public enum StartTLS: String, Sendable {
        /// Upgrade when the server offers it.
        case auto
        /// Refuse to send unless the server offers it.
        case required
        /// Never upgrade (a local sink).
        case off
    }

    /// The relay's host name or address.
    public var host: String
    /// The relay's port.
    public var port: Int
    /// The AUTH user, if the relay wants one.
    public var username: String?
    /// The AUTH password (never logged).
    public var password: String?
    /// The STARTTLS policy.
    public var startTLS: StartTLS
    /// The name sent with EHLO.
    public var heloName: String
    /// How the relay's certificate is checked.
    public var tls: TLSConfiguration
    /// How long one reply may take, in seconds.
    public var replyTimeout: Int64

    /// Creates settings.
    public init(
        host: String, port: Int, username: String? = nil, password: String? = nil, startTLS: StartTLS = .auto,
        heloName: String = "backplane.local", tls: TLSConfiguration = .makeClientConfiguration(),
        replyTimeout: Int64 = 30
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.startTLS = startTLS
        self.heloName = heloName
        self.tls = tls
        self.replyTimeout = replyTimeout
    }
}

/// An SMTP failure: `permanent` for a 5xx reply (retrying will not help), otherwise transient.
public struct SMTPError: Error, CustomStringConvertible, Sendable {
    /// The reply code, or 0 for a connection problem.
    public let code: Int
    /// What went wrong.
    public let message: String

    /// Whether a retry cannot help.
    public var permanent: Bool { (500..<600).contains(code) }

    public var description: String { code == 0 ? message : "\(code) \(message)" }
}
