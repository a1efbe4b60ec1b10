/// How often peers heartbeat and how many missed beats mean the other side is gone.
public struct HeartbeatSettings: Sendable, Equatable {
    /// Interval between heartbeats, in milliseconds (RFC 7 leaves it to the deployment; 2.5 s here).
    public var intervalMs: Int64
    /// Missed intervals after which the peer is considered dead.
    public var liveness: Int

    /// Creates settings; the defaults are the ones the zguide and this system use.
    public init(intervalMs: Int64 = 2500, liveness: Int = 3) {
        self.intervalMs = max(10, intervalMs)
        self.liveness = max(1, liveness)
    }

    /// How long a silent peer is given before it is expired.
    public var expiryMs: Int64 { intervalMs * Int64(liveness) }
}
