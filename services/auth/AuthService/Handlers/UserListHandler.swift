import AuthContract
import Contract
import ServiceKit

/// `list_users`: the admin's list of accounts.
public struct UserListHandler: Sendable {
    let accounts: AccountStore

    public init(accounts: AccountStore) {
        self.accounts = accounts
    }

    /// A page of accounts matching `request` (role `admin`).
    public func list(_ request: Auth.ListUsers.Request, _ context: OperationContext) async throws
        -> Auth.ListUsers.Reply
    {
        _ = try context.requireRole(Auth.Role.admin)
        return try await accounts.users(try UserListQuery(request))
    }
}
