import AuthContract
import Contract
import Foundation
import Store

/// Login, refresh and logout: access tokens from ``TokenIssuer``, refresh tokens from ``SessionStore``.
public struct SessionHandler: Sendable {
    let credentials: CredentialHandler
    let accounts: AccountStore
    let store: SessionStore
    let issuer: TokenIssuer
    let clock: any WallClock

    public init(
        credentials: CredentialHandler, accounts: AccountStore, store: SessionStore, issuer: TokenIssuer,
        clock: any WallClock
    ) {
        self.credentials = credentials
        self.accounts = accounts
        self.store = store
        self.issuer = issuer
        self.clock = clock
    }

    /// Checks the password (lockout rules apply) and opens a session.
    public func login(_ request: Auth.Login.Request) async throws -> Auth.Session {
        let (verified, username) = try await credentials.verifyLeavingCounters(request)
        guard let userId = UUID(uuidString: verified.userId) else { throw ServiceError(.internal, "bad user id") }
        let access = try await issuer.issue(userId: verified.userId, roles: verified.roles)
        let refresh = try await store.openAfterLogin(userId: userId, username: username, now: clock.now())
        return .init(accessToken: access.token, refreshToken: refresh, expiresIn: access.expiresIn)
    }

    /// Rotates a refresh token into a new session, with the user's current roles.
    public func refresh(_ request: Auth.RefreshRequest) async throws -> Auth.Session {
        let (userId, next) = try await store.rotate(request.refreshToken, now: clock.now())
        guard let account = try await accounts.account(id: userId) else {
            throw ServiceError(.unauthenticated, "the account no longer exists")
        }
        let access = try await issuer.issue(userId: userId.uuidString.lowercased(), roles: account.roles)
        return .init(accessToken: access.token, refreshToken: next, expiresIn: access.expiresIn)
    }

    /// Ends the session the refresh token belongs to.
    public func logout(_ request: Auth.RefreshRequest) async throws -> Empty {
        try await store.revokeFamily(of: request.refreshToken, now: clock.now())
        return Empty()
    }
}
