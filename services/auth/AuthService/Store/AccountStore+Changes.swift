import AuthContract
import Contract
import Foundation
import PostgresNIO
import Store

extension AccountStore {
    /// One profile field a holder may change, with its new value (nil clears it).
    public enum ProfileField: Sendable, Equatable {
        case username(String)
        case email(String?)
        case phone(String?)
        case displayName(String?)

        var column: String {
            switch self {
            case .username: "username"
            case .email: "email"
            case .phone: "phone"
            case .displayName: "display_name"
            }
        }

        var value: String? {
            switch self {
            case .username(let value): value
            case .email(let value), .phone(let value), .displayName(let value): value
            }
        }
    }

    /// Sets the given fields of one account inside the caller's transaction; `already_exists`
    /// when the new username belongs to another account.
    func update(_ id: UUID, _ fields: [ProfileField], now: Date, in tx: Transaction) async throws {
        var bindings = PostgresBindings()
        var sets: [String] = []
        for field in fields {
            bindings.append(field.value)
            sets.append("\(field.column) = $\(bindings.count)")
        }
        bindings.append(now)
        sets.append("updated_at = $\(bindings.count)")
        bindings.append(id)
        let sql = "UPDATE auth.users SET \(sets.joined(separator: ", ")) WHERE id = $\(bindings.count)"
        do {
            try await tx.connection.fetch(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: tx.logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            let username = fields.lazy.compactMap { if case .username(let name) = $0 { name } else { nil } }.first
            throw ServiceError(
                .alreadyExists, "the username '\(username ?? "")' is taken", details: ["field": "username"])
        }
    }

    /// Replaces a password hash inside the caller's transaction.
    func setPasswordHash(_ id: UUID, to hash: String, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(Self.setPasswordHash(id, to: hash, now: now), logger: tx.logger)
    }

    /// Rewrites the roles of `id` under a row lock; `false` when there is no such account.
    func changeRoles(_ id: UUID, now: Date, _ change: @Sendable ([String]) -> [String]) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                "SELECT roles FROM auth.users WHERE id = \(id) FOR UPDATE", logger: logger)
            var current: [String]?
            for try await roles in rows.decode([String].self) { current = roles }
            guard let current else { return false }
            let next = change(current)
            if next != current {
                try await connection.fetch(
                    "UPDATE auth.users SET roles = \(next), updated_at = \(now) WHERE id = \(id)", logger: logger)
            }
            return true
        }
    }

    /// Clears the login counters and any hold of `username` inside the caller's transaction.
    func liftHold(_ username: String, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(Self.clearLoginState(username, now: now), logger: tx.logger)
    }

    /// Deletes account `id` inside the caller's transaction (its sessions, devices and reset
    /// tokens go with it, by foreign keys); `false` when there was no such account.
    func delete(_ id: UUID, in tx: Transaction) async throws -> Bool {
        let rows = try await tx.connection.fetch(
            "DELETE FROM auth.users WHERE id = \(id) RETURNING id", logger: tx.logger)
        return try await rows.collect().count == 1
    }
}
