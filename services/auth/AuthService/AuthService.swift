import Contract
import Foundation
import ServiceKit
import Store

/// The `auth` service: accounts, sessions, roles and devices for all five apps.
public enum AuthService {
    static let maxFailures = Setting("LOGIN_MAX_FAILURES", default: "5", "failed logins that put a hold on a username")
    static let holdMinutes = Setting("LOGIN_HOLD_MINUTES", default: "20", "how long a hold lasts, in minutes")

    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "auth",
        summary: "MDP worker for accounts, sessions, roles and devices for all five apps",
        settings: WorkerHost.settings + [maxFailures, holdMinutes],
        probeHelp: "check that an auth worker answers its health operation through the broker")

    /// The migrations shipped with the service (`Migrations/NNNN_name.sql`).
    public static func migrations() throws -> [Migration] {
        guard let url = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ServiceError(.internal, "the auth service's Migrations folder is missing from its resources")
        }
        return try Migration.load(from: url)
    }

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .auth, migrations: migrations) { router, resources in
        let lockout = LockoutPolicy(
            maxFailures: try resources.environment.int(maxFailures, in: 1...1000),
            hold: TimeInterval(try resources.environment.int(holdMinutes, in: 1...10_080) * 60))
        let accounts = AccountStore(client: resources.postgres, logger: resources.logger)
        let authenticator = try await Authenticator.make(
            store: accounts, hasher: PasswordHasher(), policy: try PasswordPolicy.shipped(), lockout: lockout,
            clock: resources.clock)
        let sessionStore = SessionStore(client: resources.postgres, logger: resources.logger)
        let key = try await sessionStore.signingKey(now: resources.clock.now())
        let issuer = try await TokenIssuer.make(kid: key.kid, privateKey: key.privateKey, clock: resources.clock)
        let sessions = Sessions(
            authenticator: authenticator, accounts: accounts, store: sessionStore, issuer: issuer,
            clock: resources.clock)
        register(authenticator, sessions: sessions, issuer: issuer, on: &router)
        return []
    }

    /// Registers the service's operations.
    public static func register(
        _ authenticator: Authenticator, sessions: Sessions, issuer: TokenIssuer, on router: inout OperationRouter
    ) {
        router.register(Auth.Register.self) { request, _ in try await authenticator.register(request) }
        router.register(Auth.VerifyPassword.self) { request, _ in try await authenticator.verify(request) }
        router.register(Auth.Login.self) { request, _ in try await sessions.login(request) }
        router.register(Auth.Refresh.self) { request, _ in try await sessions.refresh(request) }
        router.register(Auth.Logout.self) { request, _ in try await sessions.logout(request) }
        router.register(Auth.JWKS.self) { _, _ in issuer.jwks() }
        router.register(Auth.GetProfile.self) { _, context in
            let actor = try context.requireActor()
            guard let id = UUID(uuidString: actor.userId), let profile = try await sessions.accounts.profile(id: id)
            else {
                throw ServiceError(.notFound, "the account no longer exists")
            }
            return profile
        }
    }
}
