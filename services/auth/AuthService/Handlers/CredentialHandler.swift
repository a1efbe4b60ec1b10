import AuthContract
import Contract
import Foundation
import PasswordHashing
import ServiceKit
import Store

/// Registration and password checks under Gifter's rules.
public struct CredentialHandler: Sendable {
    let store: AccountStore
    let transactions: Transactions
    let hasher: PasswordHasher
    let policy: PasswordPolicy
    let lockout: LockoutPolicy
    let clock: any WallClock
    /// A hash of a random password, checked for unknown usernames so that they take as long as
    /// known ones and the lockout treats both alike.
    let dummyHash: String
    /// Where `auth.profile_changed` is written when an account is created (nil: not written, as
    /// in tests of the rules alone).
    public var publisher: EventPublisher?

    /// Creates the handler (hashes the dummy password once).
    public static func make(
        store: AccountStore, transactions: Transactions, hasher: PasswordHasher, policy: PasswordPolicy,
        lockout: LockoutPolicy, clock: any WallClock
    ) async throws -> CredentialHandler {
        let dummy = try await hasher.hash(UUID().uuidString)
        return CredentialHandler(
            store: store, transactions: transactions, hasher: hasher, policy: policy, lockout: lockout, clock: clock,
            dummyHash: dummy)
    }

    /// Creates an account after checking the username and password rules.
    public func register(_ request: Auth.Register.Request) async throws -> Auth.Register.Reply {
        let username = try Username(request.username)
        try policy.check(request.password)
        var email = request.email.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if let given = email {
            guard Username.isValidEmail(given) else {
                throw ServiceError.invalidArgument("email is not a valid e-mail address", field: "email")
            }
        } else if username.isEmail {
            email = username.value
        }
        if let phone = request.phone, !Self.isE164(phone) {
            throw ServiceError.invalidArgument("phone must be in E.164 form, e.g. +46701234567", field: "phone")
        }
        let hash = try await hasher.hash(request.password)
        let id = UUID()
        guard let publisher else {
            _ = try await store.create(
                id: id, username: username, passwordHash: hash, email: email, phone: request.phone, now: clock.now())
            return .init(userId: id.uuidString.lowercased())
        }
        let event = try await transactions.run { tx in
            try await store.create(
                id: id, username: username, passwordHash: hash, email: email, phone: request.phone, now: clock.now(),
                in: tx)
            return try await publisher.append(
                topic: Auth.ProfileChanged.topic,
                payload: Auth.ProfileChanged(
                    userId: id.uuidString.lowercased(), username: username.value, displayName: nil, email: email,
                    phone: request.phone),
                requestId: nil, in: tx)
        }
        publisher.announce(event)
        return .init(userId: id.uuidString.lowercased())
    }

    /// Checks a password under the lockout: `unauthenticated` for a wrong password or an unknown
    /// username (alike), `locked` with `retryAfterSeconds` during a hold.
    public func verify(_ request: Auth.VerifyPassword.Request) async throws -> Auth.VerifyPassword.Reply {
        let (reply, username) = try await verifyLeavingCounters(request)
        // The policy starts over after any success, so there is nothing to read first.
        try await store.clearLoginState(username, now: clock.now())
        return reply
    }

    /// ``verify(_:)`` except that a success leaves the login counters for the caller to clear:
    /// login clears them in the statement that opens the session
    /// (``SessionStore/openAfterLogin(userId:username:now:)``).
    func verifyLeavingCounters(_ request: Auth.VerifyPassword.Request) async throws
        -> (Auth.VerifyPassword.Reply, Username)
    {
        let wrong = ServiceError(.unauthenticated, "wrong username or password")
        guard let username = try? Username(request.username) else { throw wrong }
        let lockout = self.lockout
        let (admission, account) = try await store.admitLogin(username, now: clock.now()) { state in
            let admission = lockout.admit(state, now: clock.now())
            if case .verify(let admitted) = admission { return (admitted, admission) }
            return (state, admission)
        }
        if case .held(let retryAfter) = admission {
            throw ServiceError(
                .locked, "too many failed logins; try again in \(retryAfter) seconds or reset the password",
                details: ["retryAfterSeconds": .number(Double(retryAfter))])
        }
        let matches = try await hasher.verify(request.password, against: account?.passwordHash ?? dummyHash)
        let succeeded = matches && account != nil
        let now = clock.now()
        guard succeeded, let account else {
            try await store.withLoginState(username, now: now) { state in
                (lockout.settle(state, succeeded: false, now: now), ())
            }
            throw wrong
        }
        if hasher.needsRehash(account.passwordHash) {
            try await store.updatePasswordHash(account.id, to: try await hasher.hash(request.password), now: now)
        }
        return (.init(userId: account.id.uuidString.lowercased(), roles: account.roles), username)
    }

    /// `+` then 8 to 15 digits, the first not 0.
    static func isE164(_ phone: String) -> Bool {
        guard phone.hasPrefix("+") else { return false }
        let digits = phone.dropFirst()
        return (8...15).contains(digits.count) && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
            && digits.first != "0"
    }
}
