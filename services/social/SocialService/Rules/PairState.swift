/// How two users stand, read under the pair's lock before a change.
public struct PairState: Sendable, Equatable {
    /// Either has blocked the other.
    public var blocked: Bool
    public var friends: Bool
    /// The caller has asked the other.
    public var requested: Bool
    /// The other has asked the caller.
    public var incoming: Bool

    public init(blocked: Bool = false, friends: Bool = false, requested: Bool = false, incoming: Bool = false) {
        self.blocked = blocked
        self.friends = friends
        self.requested = requested
        self.incoming = incoming
    }
}
