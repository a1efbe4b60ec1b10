/// Operations of the `auth` service.
public enum Auth {
    /// `register`: a new account.
    public enum Register: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "register"

        public struct Request: Codable, Sendable, Equatable {
            public var username: String
            public var password: String
            public var email: String?
            public var phone: String?
            public init(username: String, password: String, email: String? = nil, phone: String? = nil) {
                self.username = username
                self.password = password
                self.email = email
                self.phone = phone
            }
        }

        public struct Reply: Codable, Sendable, Equatable {
            public var userId: String
            public init(userId: String) { self.userId = userId }
        }
    }

    /// `verify_password`: checks a username and password under the lockout rules; the caller
    /// (login) issues the session.
    public enum VerifyPassword: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "verify_password"

        public struct Request: Codable, Sendable, Equatable {
            public var username: String
            public var password: String
            public init(username: String, password: String) {
                self.username = username
                self.password = password
            }
        }

        public struct Reply: Codable, Sendable, Equatable {
            public var userId: String
            public var roles: [String]
            public init(userId: String, roles: [String]) {
                self.userId = userId
                self.roles = roles
            }
        }
    }
}
