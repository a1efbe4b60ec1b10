/// One fixed access token (`FCM_ACCESS_TOKEN`): for local push sinks in tests, `make up` and the
/// bench only, since a Google access token expires within the hour.
public struct StaticAccessToken: AccessTokenSource {
    let token: String

    /// Always `token`.
    public init(_ token: String) { self.token = token }

    public func accessToken() async throws -> String { token }
    public func invalidate(_ token: String) async {}
}
