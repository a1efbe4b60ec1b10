import Synchronization

/// The gateway's rate-limit table: for every (route class, client) the arrival time of its
/// ``RateLimit``, in memory, in shards so that concurrent requests rarely meet on one lock.
///
/// Each gateway replica keeps its own table (no round trip to a shared store on every request),
/// so with N replicas behind a balancer a client gets up to N times the configured rate.
public final class RateLimiter: Sendable {
    /// Whose requests a bucket counts.
    public enum Subject: Hashable, Sendable {
        /// A client address (IPv6 by its /64).
        case address(IPAddress)
        /// A signed-in account, by user id.
        case account(String)
    }

    private struct Key: Hashable {
        let routeClass: RouteClass
        let subject: Subject
    }

    private struct Shard {
        var arrivals: [Key: Int64] = [:]
        var lastSweep: Int64?
    }

    /// One shard behind its own lock (a class, so that an array can hold the non-copyable lock).
    private final class LockedShard: Sendable {
        let shard = Mutex(Shard())
    }

    /// The limit of each class; a class without one is not limited.
    public let limits: [RouteClass: RateLimit]
    /// Clients remembered at most; past that, a client not yet in the table is let through
    /// unlimited until older entries expire (so the table cannot grow without bound).
    public let capacity: Int
    private let shards: [LockedShard]

    /// A table with `limits` that remembers at most `capacity` clients.
    public init(limits: [RouteClass: RateLimit], capacity: Int = 200_000) {
        self.limits = limits
        self.capacity = max(16, capacity)
        shards = (0..<16).map { _ in LockedShard() }
    }

    /// What ``admit(_:for:now:)`` decided.
    public enum Outcome: Sendable, Equatable {
        /// Within the limit (or no limit for the class).
        case allowed
        /// Over the limit; try again after this long.
        case limited(retryAfter: Duration, limit: RateLimit)
        /// Not counted: the table is full.
        case untracked
    }

    /// Counts a request of `routeClass` from `subject` at `now` (nanoseconds on a monotonic
    /// clock) and says whether it is within the limit.
    public func admit(_ routeClass: RouteClass, for subject: Subject, now: Int64) -> Outcome {
        guard let limit = limits[routeClass] else { return .allowed }
        let key = Key(routeClass: routeClass, subject: subject)
        let perShard = capacity / shards.count
        return shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))].shard.withLock { shard in
            let stored = shard.arrivals[key]
            if stored == nil, shard.arrivals.count >= perShard {
                Self.sweep(&shard, now: now)
                if shard.arrivals.count >= perShard { return .untracked }
            }
            switch limit.admit(arrival: stored, now: now) {
            case .allowed(let arrival):
                shard.arrivals[key] = arrival
                return .allowed
            case .refused(let retryAfter):
                return .limited(retryAfter: retryAfter, limit: limit)
            }
        }
    }

    /// Clients whose bucket is full again are forgotten (a full bucket is what an unknown client
    /// gets anyway); at most once a second per shard, so a table full of live clients does not
    /// cost a sweep per request.
    private static func sweep(_ shard: inout Shard, now: Int64) {
        if let last = shard.lastSweep, now - last < 1_000_000_000 { return }
        shard.lastSweep = now
        shard.arrivals = shard.arrivals.filter { $0.value > now }
    }

    /// How many clients the table remembers now.
    public var trackedCount: Int { shards.reduce(0) { $0 + $1.shard.withLock { $0.arrivals.count } } }
}
