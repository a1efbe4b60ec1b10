import Foundation

/// Gifter's lockout (5.2.2.1): `maxFailures` failed logins put a hold of `hold` on the username;
/// during the hold even the right password is refused; a success before the limit resets the count.
///
/// Counting is pessimistic so it holds under parallel attempts: an attempt is counted when it is
/// *admitted* (before the password is checked), so with 40 wrong attempts at once only the first
/// `maxFailures` are ever checked and the rest are refused as held. The store applies ``admit(_:now:)``
/// and ``settle(_:succeeded:now:)`` inside one row-locking statement each.
public struct LockoutPolicy: Sendable, Equatable {
    /// Failed attempts that start a hold (default 5).
    public var maxFailures: Int
    /// How long a hold lasts (default 20 minutes).
    public var hold: TimeInterval

    /// Creates a policy; the defaults are Gifter's.
    public init(maxFailures: Int = 5, hold: TimeInterval = 20 * 60) {
        self.maxFailures = max(1, maxFailures)
        self.hold = max(1, hold)
    }

    /// The login counters of one username.
    public struct State: Sendable, Equatable {
        /// Attempts counted since the last success or hold (admitted ones included).
        public var attempts: Int
        /// When the current hold ends, if there is one.
        public var heldUntil: Date?

        /// Counters of a username never tried.
        public static let fresh = State(attempts: 0, heldUntil: nil)

        public init(attempts: Int, heldUntil: Date?) {
            self.attempts = attempts
            self.heldUntil = heldUntil
        }
    }

    /// What to do with a login attempt.
    public enum Admission: Sendable, Equatable {
        /// Check the password; store `state` first.
        case verify(State)
        /// Refuse without checking: the username is held for `retryAfter` more seconds.
        case held(retryAfter: Int)
    }

    /// Decides, before any password is checked, whether an attempt may proceed.
    public func admit(_ state: State, now: Date) -> Admission {
        var state = state
        if let until = state.heldUntil {
            let remaining = until.timeIntervalSince(now)
            if remaining >= Self.resolution { return .held(retryAfter: Self.seconds(remaining)) }
            state = .fresh  // the hold has ended: a clean slate
        }
        guard state.attempts < maxFailures else {
            // Every admitted slot is taken by attempts still being checked.
            return .held(retryAfter: Self.seconds(hold))
        }
        state.attempts += 1
        return .verify(state)
    }

    /// The counters after an admitted attempt finished: a success clears them; the failure that
    /// uses up the last slot starts the hold.
    public func settle(_ state: State, succeeded: Bool, now: Date) -> State {
        if succeeded { return .fresh }
        if state.heldUntil == nil && state.attempts >= maxFailures {
            return State(attempts: 0, heldUntil: now.addingTimeInterval(hold))
        }
        return state
    }

    /// The finest difference between two times that counts. The store keeps times to the
    /// microsecond (PostgreSQL's `timestamptz`), so a hold's end read back can lie a fraction of
    /// a microsecond after the instant that was written: without this, that hold lasted past its
    /// 20:00 and asked for 1,201 seconds.
    static let resolution: TimeInterval = 1e-6

    /// Whole seconds to wait, rounded up, at least 1 (for `Retry-After`); less than
    /// ``resolution`` over a whole second is no more.
    static func seconds(_ interval: TimeInterval) -> Int { max(1, Int((interval - resolution).rounded(.up))) }
}
