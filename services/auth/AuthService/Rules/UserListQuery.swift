import AuthContract
import Contract
import Foundation

/// What an admin's `list_users` asks, checked: a prefix of a username or e-mail address (trimmed,
/// lower case, as usernames are stored), a known role, a page size and where the page starts.
public struct UserListQuery: Sendable, Equatable {
    /// The prefix, lower case; nil for everyone.
    public let prefix: String?
    /// The role every listed account holds; nil for any.
    public let role: Auth.Role?
    public let limit: Int
    public let after: KeysetCursor?

    /// The query of `request`; `invalid_argument` naming `q`, `role`, `limit` or `cursor`.
    public init(_ request: Auth.ListUsers.Request) throws(ServiceError) {
        // Counted as the API document counts (code points), before lower-casing can lengthen it.
        let trimmed = request.q?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let text = trimmed.lowercased()
        guard trimmed.unicodeScalars.count <= Auth.ListUsers.maxQueryLength else {
            throw ServiceError.invalidArgument(
                "q is at most \(Auth.ListUsers.maxQueryLength) characters", field: "q")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServiceError.invalidArgument("q must not hold control characters", field: "q")
        }
        prefix = text.isEmpty ? nil : text
        if let raw = request.role {
            guard let known = Auth.Role.all.first(where: { $0.rawValue == raw }) else {
                let names = Auth.Role.all.map(\.rawValue).joined(separator: ", ")
                throw ServiceError.invalidArgument("role is one of \(names)", field: "role")
            }
            role = known
        } else {
            role = nil
        }
        limit = try Auth.ListUsers.pageSize.limit(request.limit)
        after = try KeysetCursor.parse(request.cursor)
    }

    /// ``prefix`` as a LIKE pattern: its own `%`, `_` and `\` matched literally, then anything.
    public var likePattern: String? {
        prefix.map { text in
            var escaped = ""
            for character in text {
                if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
                escaped.append(character)
            }
            return escaped + "%"
        }
    }
}
