import HTTPTypes

/// The groups of routes that get a rate limit each, by what an abuser gains from calling them.
public enum RouteClass: String, Sendable, CaseIterable {
    /// Password checks: login and password change (each costs an Argon2id hash; the target of
    /// credential stuffing).
    case login
    /// New accounts (a hash each, and a way to fill the user table).
    case register
    /// Password reset and username reminder (each may send a mail).
    case recovery
    /// Searches and computed reads: venue search, route planning, locating, postcard previews,
    /// the people directory (so it cannot be scraped) and catalogue search.
    case search
    /// Every other call that changes something.
    case write
    /// Every other read.
    case read

    /// The class of a request, or nil for the probes (`/healthz`, `/readyz`, `/metrics`,
    /// `/openapi.yaml`), which are never limited: an orchestrator must always reach them.
    public static func of(method: HTTPRequest.Method, path: some StringProtocol) -> RouteClass? {
        var path = String(path)
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if Self.exempt.contains(path) { return nil }
        if let special = Self.special[Key(method: method.rawValue, path: path)] { return special }
        switch method {
        case .get, .head, .options: return .read
        default: return .write
        }
    }

    private struct Key: Hashable {
        let method: String
        let path: String
    }

    private static let exempt: Set<String> = ["/healthz", "/readyz", "/openapi.yaml"]

    /// The routes whose class is not simply read or write; each appears here once.
    private static let special: [Key: RouteClass] = [
        Key(method: "POST", path: "/v1/auth/login"): .login,
        Key(method: "POST", path: "/v1/me/password"): .login,
        Key(method: "POST", path: "/v1/auth/register"): .register,
        Key(method: "POST", path: "/v1/auth/password-reset"): .recovery,
        Key(method: "POST", path: "/v1/auth/password-reset/confirm"): .recovery,
        Key(method: "POST", path: "/v1/auth/username-reminder"): .recovery,
        Key(method: "GET", path: "/v1/campus/venues"): .search,
        Key(method: "POST", path: "/v1/campus/routes"): .search,
        Key(method: "POST", path: "/v1/campus/routes/next-class"): .search,
        Key(method: "POST", path: "/v1/campus/locate"): .search,
        Key(method: "POST", path: "/v1/postcards/preview"): .search,
        Key(method: "GET", path: "/v1/users"): .search,
        Key(method: "GET", path: "/v1/catalog/items"): .search,
    ]
}
