import AuthContract
import Contract
import Foundation
import PasswordHashing
import ServiceKit
import Store

/// The `auth` service: accounts, sessions, roles and devices for all five apps.
public enum AuthService {
    static let maxFailures = Setting("LOGIN_MAX_FAILURES", default: "5", "failed logins that put a hold on a username")
    static let holdSeconds = Setting(
        "LOGIN_HOLD_S", default: "1200", "how long a hold lasts, in seconds",
        formerly: [.init("LOGIN_HOLD_MINUTES", scale: 60)])
    static let resetSeconds = Setting(
        "RESET_TOKEN_S", default: "1800", "how long a password-reset token from the e-mail is valid, in seconds",
        formerly: [.init("RESET_TOKEN_MINUTES", scale: 60)])
    static let recoveryMailsPerHour = Setting(
        "RECOVERY_MAILS_PER_HOUR", default: "5",
        "reset or reminder mails one account or address gets per hour at most (more requests send nothing)")
    static let hashingThreads = Setting(
        "HASHING_THREADS", default: nil, "threads that compute Argon2id password hashes; default: one per core")
    static let hashingQueueLimit = Setting(
        "HASHING_QUEUE_LIMIT", default: "\(PasswordHasher.defaultQueueLimit)",
        "requests (logins, registrations, password changes) that may wait for a hashing thread; "
            + "more are answered unavailable with Retry-After at once")
    static let adminUsername = Setting(
        "ADMIN_USERNAME", default: nil, "when set (with ADMIN_PASSWORD), this account is created or made admin at start"
    )
    static let adminPassword = Setting(
        "ADMIN_PASSWORD", default: nil, "the admin account's password (the password rules apply)", secret: true)

    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "auth",
        summary: "MDP worker for accounts, sessions, roles and devices for all five apps",
        settings: WorkerHost.settings + [
            maxFailures, holdSeconds, resetSeconds, recoveryMailsPerHour, hashingThreads, hashingQueueLimit,
            adminUsername, adminPassword,
        ],
        probeHelp: "check that an auth worker answers its health operation through the broker")

    /// The migrations shipped with the service (`Migrations/NNNN_name.sql`).
    public static func migrations() throws -> [Migration] {
        guard let url = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ServiceError(.internal, "the auth service's Migrations folder is missing from its resources")
        }
        return try Migration.load(from: url)
    }

    /// The password rules with the list of common passwords shipped with the service (10,000
    /// most common passwords, `Resources/common-passwords.txt`).
    public static func passwordPolicy() throws -> PasswordPolicy {
        guard let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt") else {
            throw ServiceError(.internal, "common-passwords.txt is missing from the auth service's resources")
        }
        return PasswordPolicy(commonPasswordList: try String(contentsOf: url, encoding: .utf8))
    }

    /// Everything the operations need, built once at start.
    public struct Parts: Sendable {
        public let credentials: CredentialHandler
        public let sessions: SessionHandler
        public let issuer: TokenIssuer
        public let accounts: AccountHandler
        public let users: UserListHandler
        public let devices: DeviceHandler
        public let recovery: RecoveryHandler

        public init(
            credentials: CredentialHandler, sessions: SessionHandler, issuer: TokenIssuer, accounts: AccountHandler,
            users: UserListHandler, devices: DeviceHandler, recovery: RecoveryHandler
        ) {
            self.credentials = credentials
            self.sessions = sessions
            self.issuer = issuer
            self.accounts = accounts
            self.users = users
            self.devices = devices
            self.recovery = recovery
        }
    }

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .auth, migrations: migrations) { router, resources in
        let environment = resources.environment
        let lockout = LockoutPolicy(
            maxFailures: try environment.int(maxFailures, in: 1...1000),
            hold: TimeInterval(try environment.int(holdSeconds, in: 60...604_800)))
        let policy = try passwordPolicy()
        let hasher = PasswordHasher(
            threads: try environment.string(hashingThreads).map { _ in try environment.int(hashingThreads, in: 1...256)
            }
                ?? ProcessInfo.processInfo.activeProcessorCount,
            queueLimit: try environment.int(hashingQueueLimit, in: 0...100_000))
        let transactions = resources.transactions
        let accounts = AccountStore(client: resources.database.client, logger: resources.logger)
        let publisher = try resources.publisher()
        var credentials = try await CredentialHandler.make(
            store: accounts, transactions: transactions, hasher: hasher, policy: policy, lockout: lockout,
            clock: resources.clock)
        credentials.publisher = publisher
        let sessionStore = SessionStore(client: resources.database.client, logger: resources.logger)
        let key = try await sessionStore.signingKey(now: resources.clock.now())
        let issuer = try await TokenIssuer.make(kid: key.kid, privateKey: key.privateKey, clock: resources.clock)
        var recovery = RecoveryHandler(
            accounts: accounts, sessions: sessionStore,
            resets: RecoveryStore(client: resources.database.client, logger: resources.logger), transactions: transactions,
            policy: policy, hasher: hasher, publisher: publisher, clock: resources.clock)
        recovery.tokenLifetime = TimeInterval(try environment.int(resetSeconds, in: 60...86_400))
        recovery.mailsPerHour = try environment.int(recoveryMailsPerHour, in: 1...1000)
        let parts = Parts(
            credentials: credentials,
            sessions: SessionHandler(
                credentials: credentials, accounts: accounts, store: sessionStore, issuer: issuer,
                clock: resources.clock),
            issuer: issuer,
            accounts: AccountHandler(
                accounts: accounts, sessions: sessionStore, transactions: transactions, credentials: credentials,
                issuer: issuer, publisher: publisher, clock: resources.clock),
            users: UserListHandler(accounts: accounts),
            devices: DeviceHandler(
                store: DeviceStore(client: resources.database.client, logger: resources.logger, clock: resources.clock)),
            recovery: recovery)
        switch (environment.string(adminUsername), environment.string(adminPassword)) {
        case (let username?, let password?):
            try await AdminAccount.ensure(
                username: username, password: password, credentials: credentials, logger: resources.logger)
        case (nil, nil):
            break
        default:
            throw ServiceError(.invalidArgument, "set both ADMIN_USERNAME and ADMIN_PASSWORD, or neither")
        }
        register(parts, on: &router)
        return [publisher.service]
    }

    /// Registers the service's operations.
    public static func register(_ parts: Parts, on router: inout OperationRouter) {
        let (credentials, sessions, accounts, devices, recovery) = (
            parts.credentials, parts.sessions, parts.accounts, parts.devices, parts.recovery
        )
        router.register(Auth.Register.self) { request, _ in try await credentials.register(request) }
        router.register(Auth.VerifyPassword.self) { request, _ in try await credentials.verify(request) }
        router.register(Auth.Login.self) { request, _ in try await sessions.login(request) }
        router.register(Auth.Refresh.self) { request, _ in try await sessions.refresh(request) }
        router.register(Auth.Logout.self) { request, _ in try await sessions.logout(request) }
        router.register(Auth.JWKS.self) { [issuer = parts.issuer] _, _ in issuer.jwks() }

        router.register(Auth.GetProfile.self) { _, context in try await accounts.profile(try context.userId()) }
        router.register(Auth.UpdateProfile.self) { changes, context in
            try await accounts.updateProfile(try context.userId(), changes)
        }
        router.register(Auth.ChangePassword.self) { request, context in
            try await accounts.changePassword(try context.userId(), request)
        }
        router.register(Auth.DeleteAccount.self) { _, context in
            try await accounts.delete(try context.userId(), requestId: context.metadata.requestId)
        }
        router.register(Auth.GrantRoles.self) { request, context in
            try await accounts.grantRoles(request, by: try context.requireRole(Auth.Role.admin))
        }
        router.register(Auth.EnsureAdmin.self) { request, context in
            _ = try context.requireRole(Auth.Role.admin)
            let id = try await AdminAccount.ensure(
                username: request.username, password: request.password, credentials: credentials,
                logger: context.logger, fields: (username: "username", password: "password"))
            return .init(userId: id.uuidString.lowercased())
        }
        register(userList: parts.users, on: &router)

        router.register(Auth.RegisterDevice.self) { request, context in
            try await devices.register(request, userId: try context.userId())
        }
        router.register(Auth.RemoveDevice.self) { request, context in
            try await devices.remove(request.deviceId, userId: try context.userId())
        }
        router.register(Auth.ListDevices.self) { request, context in try await devices.list(request, context) }
        router.register(Auth.LookupContacts.self) { request, context in
            try await devices.lookupContacts(request, context)
        }
        router.register(Auth.ForgetDeviceToken.self) { request, context in
            try await devices.forgetToken(request, context)
        }

        router.register(Auth.RequestPasswordReset.self) { request, context in
            _ = try await recovery.requestResetEvenly(request, requestId: context.metadata.requestId)
            return Auth.Accepted()
        }
        router.register(Auth.ConfirmPasswordReset.self) { request, _ in try await recovery.confirmReset(request) }
        router.register(Auth.RequestUsernameReminder.self) { request, context in
            _ = try await recovery.requestReminderEvenly(request, requestId: context.metadata.requestId)
            return Auth.Accepted()
        }
    }

    /// Registers `list_users`, the admin's list of accounts (role `admin`).
    public static func register(userList users: UserListHandler, on router: inout OperationRouter) {
        router.register(Auth.ListUsers.self) { request, context in try await users.list(request, context) }
    }
}
