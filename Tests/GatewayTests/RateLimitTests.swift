import Contract
import GatewayService
import Testing

/// The arithmetic of one rate limit and of the table of them, with the clock passed in.
@Suite("gateway: rate limits")
struct RateLimitTests {
    static let second: Int64 = 1_000_000_000

    @Test("a full bucket lets `burst` requests through at once, then one per interval, and says when to come back")
    func bucket() throws {
        let limit = RateLimit(count: 30, per: .seconds(60), burst: 10)  // one token every 2 s
        var arrival: Int64? = nil
        let start: Int64 = 1_000 * Self.second
        for index in 0..<10 {
            guard case .allowed(let next) = limit.admit(arrival: arrival, now: start) else {
                Issue.record("request \(index) of the burst was refused")
                return
            }
            arrival = next
        }
        #expect(limit.admit(arrival: arrival, now: start) == .refused(retryAfter: .seconds(2)))
        // 1.5 s later: still half a token short.
        #expect(
            limit.admit(arrival: arrival, now: start + 3 * Self.second / 2) == .refused(retryAfter: .milliseconds(500)))
        // 2 s later: exactly one token back, and only one.
        guard case .allowed(let after) = limit.admit(arrival: arrival, now: start + 2 * Self.second) else {
            Issue.record("the token that came back was not given")
            return
        }
        #expect(limit.admit(arrival: after, now: start + 2 * Self.second) == .refused(retryAfter: .seconds(2)))
        // A long pause fills the bucket up to the burst, never beyond it.
        var refilled: Int64? = after
        var allowed = 0
        while case .allowed(let next) = limit.admit(arrival: refilled, now: start + 3_600 * Self.second) {
            refilled = next
            allowed += 1
        }
        #expect(allowed == 10)
    }

    @Test(
        "limits parse from settings, and refuse what they cannot mean",
        arguments: [
            ("30/min,burst=10", "30/min,burst=10"), ("5/s", "5/s,burst=5"), ("20/h, burst=4", "20/h,burst=4"),
            ("100/MIN", "100/min,burst=100"),
        ])
    func parse(text: String, expected: String) throws {
        #expect(try RateLimit.parse(text)?.description == expected)
    }

    @Test(
        "malformed limits are refused",
        arguments: ["", "30", "30/day", "0/min", "-1/s", "10/min,burst=0", "10/min,b=3", "x/min"])
    func malformed(text: String) {
        #expect(throws: ServiceError.self) { try RateLimit.parse(text) }
    }

    @Test("off means no limit")
    func off() throws {
        #expect(try RateLimit.parse("off") == nil)
    }

    @Test("the table counts each class and each client apart")
    func table() {
        let limiter = RateLimiter(limits: [.login: RateLimit(count: 1, per: .seconds(60), burst: 2)])
        let alice = RateLimiter.Subject.address(IPAddress("192.0.2.1")!)
        let bob = RateLimiter.Subject.address(IPAddress("192.0.2.2")!)
        let now: Int64 = 5 * Self.second
        #expect(limiter.admit(.login, for: alice, now: now) == .allowed)
        #expect(limiter.admit(.login, for: alice, now: now) == .allowed)
        guard case .limited(let retryAfter, _) = limiter.admit(.login, for: alice, now: now) else {
            Issue.record("the third login in a burst of two went through")
            return
        }
        #expect(retryAfter == .seconds(60))
        #expect(limiter.admit(.login, for: bob, now: now) == .allowed, "another address has its own bucket")
        #expect(limiter.admit(.login, for: .account("u-1"), now: now) == .allowed, "an account has its own bucket")
        #expect(limiter.admit(.read, for: alice, now: now) == .allowed, "a class without a limit is not limited")
    }

    @Test("the table forgets clients whose bucket is full again, and never grows past its capacity")
    func capacity() {
        let limiter = RateLimiter(limits: [.read: RateLimit(count: 1, per: .seconds(1), burst: 1)], capacity: 16)
        let now: Int64 = 10 * Self.second
        for index in 0..<200 {
            _ = limiter.admit(.read, for: .account("user-\(index)"), now: now)
        }
        #expect(limiter.trackedCount <= 16)
        // Two seconds on, every bucket is full: the next client finds room again.
        #expect(limiter.admit(.read, for: .account("late"), now: now + 2 * Self.second) == .allowed)
        #expect(limiter.trackedCount <= 16)
    }

    @Test("routes fall into their classes; the probes into none")
    func classes() {
        #expect(RouteClass.of(method: .post, path: "/v1/auth/login") == .login)
        #expect(RouteClass.of(method: .post, path: "/v1/me/password") == .login)
        #expect(RouteClass.of(method: .post, path: "/v1/auth/register") == .register)
        #expect(RouteClass.of(method: .post, path: "/v1/auth/password-reset") == .recovery)
        #expect(RouteClass.of(method: .post, path: "/v1/auth/username-reminder") == .recovery)
        #expect(RouteClass.of(method: .get, path: "/v1/campus/venues") == .search)
        #expect(RouteClass.of(method: .post, path: "/v1/campus/routes") == .search)
        #expect(RouteClass.of(method: .get, path: "/v1/campus/venues/abc") == .read)
        #expect(RouteClass.of(method: .get, path: "/v1/users") == .search)
        #expect(RouteClass.of(method: .get, path: "/v1/catalog/items") == .search)
        #expect(RouteClass.of(method: .get, path: "/v1/catalog/items/abc") == .read)
        #expect(RouteClass.of(method: .post, path: "/v1/orders") == .write)
        #expect(RouteClass.of(method: .delete, path: "/v1/me/pins/1") == .write)
        #expect(RouteClass.of(method: .get, path: "/v1/orders") == .read)
        for probe in ["/healthz", "/readyz", "/openapi.yaml"] {
            #expect(RouteClass.of(method: .get, path: probe) == nil)
        }
    }
}
