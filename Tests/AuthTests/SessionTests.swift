import AuthService
import Contract
import Foundation
import Logging
import PasswordHashing
import PostgresNIO
import Store
import TestSupport
import Testing

/// Login, refresh rotation with reuse detection, and logout, against PostgreSQL.
@Suite("auth: sessions against PostgreSQL")
struct SessionTests {
    func withSessions(
        clock: ManualClock = ManualClock(Date()),
        _ body: @Sendable (SessionHandler, CredentialHandler, TokenIssuer, SessionStore) async throws -> Void
    ) async throws {
        try await PostgresFixture.withClient(logger: AuthenticatorTests.logger) { client in
            let logger = AuthenticatorTests.logger
            try await Migrator(client: client, schema: "auth", logger: logger).migrate(AuthService.migrations())
            let accounts = AccountStore(client: client, logger: logger)
            let authenticator = try await CredentialHandler.make(
                store: accounts, transactions: Transactions(client, logger: logger),
                hasher: PasswordHasher(parameters: AuthenticatorTests.cheap, threads: 2),
                policy: try AuthService.passwordPolicy(), lockout: LockoutPolicy(), clock: clock)
            let store = SessionStore(client: client, logger: logger)
            let key = try await store.signingKey(now: clock.now())
            let again = try await store.signingKey(now: clock.now())
            #expect(key.kid == again.kid, "one active key, shared by every replica")
            let issuer = try await TokenIssuer.make(kid: key.kid, privateKey: key.privateKey, clock: clock)
            let sessions = SessionHandler(
                credentials: authenticator, accounts: accounts, store: store, issuer: issuer, clock: clock)
            try await body(sessions, authenticator, issuer, store)
        }
    }

    func signedUp(_ authenticator: CredentialHandler) async throws -> String {
        let name = "s-\(UUID().uuidString.prefix(8))@example.org"
        _ = try await authenticator.register(.init(username: name, password: "Lund2026x"))
        return name
    }

    @Test("login gives an access token that verifies and a refresh token")
    func login() async throws {
        try await withSessions { sessions, authenticator, issuer, _ in
            let name = try await signedUp(authenticator)
            let session = try await sessions.login(.init(username: name, password: "Lund2026x"))
            #expect(session.expiresIn == 900)
            #expect(try await issuer.verify(session.accessToken).roles == ["user"])
            #expect(session.refreshToken.count >= 43, "256 random bits")
            await #expect(throws: ServiceError.self) {
                _ = try await sessions.login(.init(username: name, password: "Wrong2026x"))
            }
        }
    }

    @Test("a login clears the failure count in the statement that opens the session")
    func loginResetsCount() async throws {
        try await withSessions { sessions, authenticator, _, _ in
            let name = try await signedUp(authenticator)
            func attempt(_ password: String) async -> ErrorCode? {
                await code { _ = try await sessions.login(.init(username: name, password: password)) }
            }
            for _ in 0..<4 { #expect(await attempt("Wrong2026x") == .unauthenticated) }
            #expect(await attempt("Lund2026x") == nil, "counted from fresh: the general path")
            #expect(await attempt("Lund2026x") == nil, "fresh again: the one-statement path")
            for _ in 0..<4 { #expect(await attempt("Wrong2026x") == .unauthenticated) }
            #expect(await attempt("Lund2026x") == nil, "four failures after the success: still no hold")
            for _ in 0..<5 { #expect(await attempt("Wrong2026x") == .unauthenticated) }
            #expect(await attempt("Lund2026x") == .locked)
        }
    }

    @Test("refresh rotates the token; reusing a spent one revokes the whole family")
    func rotation() async throws {
        try await withSessions { sessions, authenticator, _, _ in
            let name = try await signedUp(authenticator)
            let first = try await sessions.login(.init(username: name, password: "Lund2026x"))
            let second = try await sessions.refresh(.init(refreshToken: first.refreshToken))
            #expect(second.refreshToken != first.refreshToken)
            let third = try await sessions.refresh(.init(refreshToken: second.refreshToken))
            // The spent first token shows up again: someone copied it. Every token of that login dies.
            await #expect(throws: ServiceError.self) {
                _ = try await sessions.refresh(.init(refreshToken: first.refreshToken))
            }
            await #expect(throws: ServiceError.self) {
                _ = try await sessions.refresh(.init(refreshToken: third.refreshToken))
            }
            // Another login is another family, untouched.
            let other = try await sessions.login(.init(username: name, password: "Lund2026x"))
            _ = try await sessions.refresh(.init(refreshToken: other.refreshToken))
        }
    }

    /// A clock with digits below the microsecond, as a real one has: the expiry goes into
    /// PostgreSQL at microseconds, and the token must end exactly when it says.
    @Test(
        "a refresh token works until its 30 days are over and not at their end",
        arguments: [0, 0.000_000_1, 0.000_000_4, 0.000_000_9])
    func expiry(subMicrosecond: Double) async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_798_761_600.123_456 + subMicrosecond))
        try await withSessions(clock: clock) { sessions, authenticator, _, store in
            let name = try await signedUp(authenticator)
            let first = try await sessions.login(.init(username: name, password: "Lund2026x"))
            let kept = try await sessions.login(.init(username: name, password: "Lund2026x"))
            clock.advance(by: store.refreshLifetime - 0.5)
            let second = try await sessions.refresh(.init(refreshToken: first.refreshToken))
            clock.advance(by: 0.5)
            let error = await #expect(throws: ServiceError.self) {
                _ = try await sessions.refresh(.init(refreshToken: kept.refreshToken))
            }
            #expect(error?.code == .unauthenticated)
            #expect(error?.message == "the refresh token has expired")
            // The token given half a second before the end has its own 30 days.
            _ = try await sessions.refresh(.init(refreshToken: second.refreshToken))
        }
    }

    @Test("logout revokes the session; logging out twice is fine")
    func logout() async throws {
        try await withSessions { sessions, authenticator, _, _ in
            let name = try await signedUp(authenticator)
            let session = try await sessions.login(.init(username: name, password: "Lund2026x"))
            _ = try await sessions.logout(.init(refreshToken: session.refreshToken))
            _ = try await sessions.logout(.init(refreshToken: session.refreshToken))
            await #expect(throws: ServiceError.self) {
                _ = try await sessions.refresh(.init(refreshToken: session.refreshToken))
            }
            await #expect(throws: ServiceError.self) {
                _ = try await sessions.refresh(.init(refreshToken: "not-a-token"))
            }
        }
    }
}
