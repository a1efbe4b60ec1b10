/// What sending a friend request does, given how the two stand. A repeated request is the same
/// request, a request to someone who asked first accepts theirs, and a block hides the other
/// user entirely (the sender learns nothing it could not learn of a user who does not exist).
public enum FriendRequestRule {
    public enum Outcome: Sendable, Equatable {
        /// Store a new request and tell the addressee.
        case newRequest
        /// Nothing changes: the request is already there.
        case alreadyRequested
        /// Nothing changes: they are friends.
        case alreadyFriends
        /// The other asked first: both are friends now, and the other is told.
        case acceptTheirs
        /// Answer as for an unknown user.
        case hidden
    }

    public static func onSend(_ state: PairState) -> Outcome {
        if state.blocked { return .hidden }
        if state.friends { return .alreadyFriends }
        if state.incoming { return .acceptTheirs }
        if state.requested { return .alreadyRequested }
        return .newRequest
    }
}
