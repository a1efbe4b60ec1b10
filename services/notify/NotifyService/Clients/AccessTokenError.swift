/// Why no FCM access token could be had.
public struct AccessTokenError: Error, Sendable, CustomStringConvertible {
    /// The token endpoint refused our assertion (a wrong or revoked key, a wrong clock): a
    /// retry will not mend it, an operator must.
    public var isConfiguration: Bool
    /// The endpoint's OAuth error (`invalid_grant`, `invalid_client`, ...) or what went wrong.
    public var reason: String

    /// An error.
    public init(isConfiguration: Bool, reason: String) {
        self.isConfiguration = isConfiguration
        self.reason = reason
    }

    public var description: String { "FCM access token: \(reason)" }
}
