import Foundation
import Synchronization

/// The signed-in accounts of a scenario, kept signed in for as long as the run lasts, as the apps
/// keep theirs: an access token lives 15 minutes (`expiresIn`), so a run longer than that renews
/// each session with its refresh token (`POST /v1/auth/refresh`) a minute before it expires. The
/// first request that finds its session due renews it; requests meanwhile go on with the old
/// token, still valid. A refresh token works once (using a spent one again revokes the login), so
/// a session has at most one renewal under way.
final class SessionPool: Sendable {
    /// A session as login and refresh answer it.
    struct Session: Sendable {
        var access: String
        var refresh: String
        /// How long the access token lives, from the answer's `expiresIn`.
        var lifetime: Duration
    }

    private struct Entry {
        var session: Session
        /// When the session is due for renewal.
        var renewAt: ContinuousClock.Instant
        var renewing = false
    }

    /// Renew this long before the access token expires.
    static let margin = Duration.seconds(60)
    /// After a renewal that failed, try again this much later.
    static let retryAfter = Duration.seconds(5)

    private let sessions: Mutex<[Entry]>
    /// How long after it was issued a session is renewed, when not a ``margin`` before its
    /// access token expires (`--renew-every`).
    private let renewAfter: Duration?
    /// Where renewals are counted (their own request kind), when anywhere.
    private let tally: Tally?
    private let kind: String

    /// `sessions`: one per account, from ``session(fromLogin:)``, just issued. `kind`: the request
    /// kind the renewals are tallied under, expected 200. `renewAfter`: renew each session this
    /// long after it was issued instead (to exercise renewal in a short run).
    init(_ sessions: [Session], tally: Tally?, kind: String, renewAfter: Duration? = nil) {
        self.renewAfter = renewAfter
        let now = ContinuousClock.now
        self.sessions = Mutex(sessions.map { Entry(session: $0, renewAt: Self.renewal(of: $0, after: renewAfter, now: now)) })
        self.tally = tally
        self.kind = kind
    }

    private static func renewal(of session: Session, after: Duration?, now: ContinuousClock.Instant)
        -> ContinuousClock.Instant
    {
        now + (after ?? max(.zero, session.lifetime - margin))
    }

    var count: Int { sessions.withLock { $0.count } }

    /// A session from the body of a 200 to `/v1/auth/login` or `/v1/auth/refresh`; nil when the
    /// body is not one.
    static func session(fromLogin body: String) -> Session? {
        guard let fields = jsonObject(body), let access = fields["accessToken"] as? String, let refresh = fields["refreshToken"] as? String,
            let lifetime = fields["expiresIn"] as? Int
        else { return nil }
        return Session(access: access, refresh: refresh, lifetime: .seconds(lifetime))
    }

    /// The `Authorization` header for account `index` (modulo the book's size), renewing its
    /// session first when it is due and no renewal is under way.
    func authorization(_ index: Int, http: GatewayHTTP) async -> [String: String] {
        let now = ContinuousClock.now
        let (slot, access, spend) = sessions.withLock { book -> (Int, String, String?) in
            let slot = index % book.count
            guard now >= book[slot].renewAt, !book[slot].renewing else {
                return (slot, book[slot].session.access, nil)
            }
            book[slot].renewing = true
            return (slot, book[slot].session.access, book[slot].session.refresh)
        }
        guard let spend else { return ["Authorization": "Bearer \(access)"] }
        let started = ContinuousClock.now
        let answer = try? await http.post("/v1/auth/refresh", #"{"refreshToken": "\#(spend)"}"#)
        let status = answer?.status ?? 0
        tally?.record(kind, status: status, latency: .now - started, expected: [200])
        let renewed = status == 200 ? answer.flatMap { Self.session(fromLogin: $0.body) } : nil
        let token = sessions.withLock { book -> String in
            if let renewed {
                book[slot] = Entry(session: renewed, renewAt: Self.renewal(of: renewed, after: renewAfter, now: .now))
            } else {
                // Kept as it was: the old token may still be valid, and the refresh token, if the
                // answer was lost, may not be spent. Tried again shortly.
                book[slot].renewing = false
                book[slot].renewAt = .now + Self.retryAfter
            }
            return book[slot].session.access
        }
        return ["Authorization": "Bearer \(token)"]
    }
}
