/// Where FCM's OAuth 2 access tokens come from.
public protocol AccessTokenSource: Sendable {
    /// A token valid for a while yet; throws ``AccessTokenError`` when none can be had.
    func accessToken() async throws -> String
    /// FCM refused `token` (401): do not hand it out again.
    func invalidate(_ token: String) async
}
