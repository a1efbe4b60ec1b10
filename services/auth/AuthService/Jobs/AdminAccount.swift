import AuthContract
import Contract
import Foundation
import Logging

/// The admin account an operator configures with `ADMIN_USERNAME` / `ADMIN_PASSWORD` (at start)
/// or asks for with `ensure_admin`: created when missing, otherwise given the admin role and the
/// password.
public enum AdminAccount {
    /// Creates or updates the account; the password must follow the same rules as everyone's.
    /// Replicas starting together are fine: a lost race to create becomes an update. `fields`
    /// are the names a refusal gives the two (the settings', or a request's members).
    @discardableResult
    public static func ensure(
        username raw: String, password: String, credentials: CredentialHandler, logger: Logger,
        fields: (username: String, password: String) = (username: "ADMIN_USERNAME", password: "ADMIN_PASSWORD")
    ) async throws -> UUID {
        let username = try Username(raw, field: fields.username)
        try credentials.policy.check(password, field: fields.password)
        let store = credentials.store
        let now = credentials.clock.now()
        if try await store.account(username) == nil {
            let hash = try await credentials.hasher.hash(password)
            do {
                let id = try await store.create(
                    id: UUID(), username: username, passwordHash: hash, email: username.isEmail ? username.value : nil,
                    phone: nil, now: now, roles: [Auth.Role.user.rawValue, Auth.Role.admin.rawValue])
                logger.notice("admin account created", metadata: ["username": "\(username)", "userId": "\(id)"])
                return id
            } catch let error as ServiceError where error.code == .alreadyExists {}
        }
        guard let account = try await store.account(username) else {
            throw ServiceError(.internal, "the admin account vanished while it was being set up")
        }
        if try await !credentials.hasher.verify(password, against: account.passwordHash) {
            try await store.updatePasswordHash(account.id, to: try await credentials.hasher.hash(password), now: now)
            logger.notice("admin password updated", metadata: ["username": "\(username)"])
        }
        if !account.roles.contains(Auth.Role.admin.rawValue) {
            _ = try await store.changeRoles(account.id, now: now) { roles in
                Auth.Role.all.map(\.rawValue).filter { roles.contains($0) || $0 == Auth.Role.admin.rawValue }
            }
            logger.notice("admin role granted", metadata: ["username": "\(username)"])
        }
        return account.id
    }
}
