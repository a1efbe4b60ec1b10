import AuthService
import Contract
import Foundation
import Logging
import PasswordHashing
import PostgresNIO
import Store
import TestSupport
import Testing

/// Registration and the lockout against a real PostgreSQL (`DATABASE_URL`), schema `auth`.
@Suite("auth: register and verify against PostgreSQL")
struct AuthenticatorTests {
    static let logger: Logger = {
        var logger = Logger(label: "auth-test")
        logger.logLevel = .critical
        return logger
    }()

    static let cheap = PasswordHasher.Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)

    /// Runs `body` with an authenticator on a migrated `auth` schema and a clock the test moves.
    func withAuthenticator(
        hasher: PasswordHasher = PasswordHasher(parameters: cheap, threads: 2),
        _ body: @Sendable (CredentialHandler, ManualClock, AccountStore, PasswordHasher) async throws -> Void
    ) async throws {
        try await PostgresFixture.withClient(logger: Self.logger) { client in
            try await Migrator(client: client, schema: "auth", logger: Self.logger).migrate(AuthService.migrations())
            let clock = ManualClock(Date())
            let store = AccountStore(client: client, logger: Self.logger)
            let authenticator = try await CredentialHandler.make(
                store: store, transactions: Transactions(client, logger: Self.logger), hasher: hasher,
                policy: try AuthService.passwordPolicy(), lockout: LockoutPolicy(), clock: clock)
            try await body(authenticator, clock, store, hasher)
        }
    }

    /// A username no other test (or run) uses.
    func fresh(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8))@example.org" }

    @Test("a username is unique however it is capitalised or padded")
    func uniqueUsername() async throws {
        try await withAuthenticator { auth, _, _, _ in
            let name = fresh("Ann")
            let created = try await auth.register(.init(username: name, password: "Lund2026x"))
            #expect(!created.userId.isEmpty)
            let again = await code {
                _ = try await auth.register(.init(username: "  \(name.uppercased()) ", password: "Lund2026x"))
            }
            #expect(again == .alreadyExists)
        }
    }

    @Test("a weak password, a bad e-mail or phone is invalid_argument naming the problem")
    func badInput() async throws {
        try await withAuthenticator { auth, _, _, _ in
            do {
                _ = try await auth.register(.init(username: fresh("weak"), password: "short"))
                Issue.record("must throw")
            } catch let error as ServiceError {
                #expect(error.code == .invalidArgument)
                #expect(error.details?["rules"] == .array(["too_short", "missing_digit", "missing_capital"]))
            }
            #expect(
                await code {
                    _ = try await auth.register(
                        .init(username: "bob-\(UUID().uuidString.prefix(6))", password: "Lund2026x", email: "nope"))
                } == .invalidArgument)
            #expect(
                await code {
                    _ = try await auth.register(.init(username: fresh("p"), password: "Lund2026x", phone: "0701234567"))
                } == .invalidArgument)
            #expect(
                await code {
                    _ = try await auth.register(
                        .init(username: fresh("p"), password: "Lund2026x", phone: "+46701234567"))
                } == nil)
        }
    }

    @Test("five wrong passwords, then a 20-minute hold that ends at 20:00 exactly, not before")
    func lockout() async throws {
        try await withAuthenticator { auth, clock, _, _ in
            let name = fresh("held")
            _ = try await auth.register(.init(username: name, password: "Lund2026x"))
            #expect(try await auth.verify(.init(username: name, password: "Lund2026x")).roles == ["user"])
            for _ in 0..<5 {
                #expect(
                    await code { _ = try await auth.verify(.init(username: name, password: "Wrong2026x")) }
                        == .unauthenticated)
            }
            do {
                _ = try await auth.verify(.init(username: name, password: "Lund2026x"))
                Issue.record("held: even the right password is refused")
            } catch let error as ServiceError {
                #expect(error.code == .locked)
                #expect(error.retryAfterSeconds == 1200)
            }
            clock.advance(by: 19 * 60 + 59)
            #expect(await code { _ = try await auth.verify(.init(username: name, password: "Lund2026x")) } == .locked)
            clock.advance(by: 1)
            #expect(await code { _ = try await auth.verify(.init(username: name, password: "Lund2026x")) } == nil)
        }
    }

    @Test("a success before the fifth failure resets the count")
    func successResets() async throws {
        try await withAuthenticator { auth, _, _, _ in
            let name = fresh("reset")
            _ = try await auth.register(.init(username: name, password: "Lund2026x"))
            for _ in 0..<4 {
                _ = await code { _ = try await auth.verify(.init(username: name, password: "Nope2026x")) }
            }
            #expect(await code { _ = try await auth.verify(.init(username: name, password: "Lund2026x")) } == nil)
            for _ in 0..<4 {
                #expect(
                    await code { _ = try await auth.verify(.init(username: name, password: "Nope2026x")) }
                        == .unauthenticated)
            }
        }
    }

    @Test("an unknown username behaves exactly like a known one: 401 five times, then 423")
    func unknownUsername() async throws {
        try await withAuthenticator { auth, _, _, hasher in
            let name = fresh("ghost")
            let before = hasher.verificationCount
            var codes: [ErrorCode?] = []
            for _ in 0..<6 {
                codes.append(await code { _ = try await auth.verify(.init(username: name, password: "Lund2026x")) })
            }
            #expect(
                codes == [
                    .unauthenticated, .unauthenticated, .unauthenticated, .unauthenticated, .unauthenticated, .locked,
                ])
            #expect(hasher.verificationCount - before == 5, "a dummy hash is checked, as for a real account")
        }
    }

    @Test("40 wrong attempts at once check at most 5 passwords and answer the rest 423")
    func parallelAttempts() async throws {
        try await withAuthenticator { auth, _, _, hasher in
            let name = fresh("storm")
            _ = try await auth.register(.init(username: name, password: "Lund2026x"))
            let before = hasher.verificationCount
            let codes = try await withThrowingTaskGroup(of: ErrorCode?.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        await code { _ = try await auth.verify(.init(username: name, password: "Wrong2026x")) }
                    }
                }
                var codes: [ErrorCode?] = []
                for try await code in group { codes.append(code) }
                return codes
            }
            #expect(hasher.verificationCount - before <= 5)
            #expect(codes.filter { $0 == .unauthenticated }.count <= 5)
            #expect(codes.filter { $0 == .locked }.count >= 35)
        }
    }

    @Test("a hash with older parameters is replaced at the next successful login")
    func rehash() async throws {
        try await withAuthenticator { auth, clock, store, hasher in
            let old = PasswordHasher(parameters: .init(memoryKiB: 512, iterations: 1, parallelism: 1), threads: 1)
            let name = try Username(fresh("old"))
            let id = try await store.create(
                id: UUID(), username: name, passwordHash: try await old.hash("Lund2026x"), email: nil, phone: nil,
                now: clock.now())
            _ = try await auth.verify(.init(username: name.value, password: "Lund2026x"))
            let account = try #require(try await store.account(name))
            #expect(account.id == id)
            #expect(!hasher.needsRehash(account.passwordHash))
            #expect(try await hasher.verify("Lund2026x", against: account.passwordHash))
        }
    }
}
