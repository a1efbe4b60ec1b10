import Contract

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

extension Auth {
    /// Tokens for a signed-in session.
    public struct Session: Codable, Sendable, Equatable {
        /// A JWT (EdDSA) for `Authorization: Bearer`, valid `expiresIn` seconds.
        public var accessToken: String
        /// An opaque token for `refresh`; single use.
        public var refreshToken: String
        /// Seconds until the access token expires.
        public var expiresIn: Int
        public init(accessToken: String, refreshToken: String, expiresIn: Int) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
        }
    }

    /// `login`: username and password for a session, under the lockout rules.
    public enum Login: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "login"
        public typealias Request = VerifyPassword.Request
        public typealias Reply = Session
    }

    /// A refresh token, for `refresh` and `logout`.
    public struct RefreshRequest: Codable, Sendable, Equatable {
        public var refreshToken: String
        public init(refreshToken: String) { self.refreshToken = refreshToken }
    }

    /// `refresh`: a spent refresh token for a new session; reusing one revokes its whole family.
    public enum Refresh: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "refresh"
        public typealias Request = RefreshRequest
        public typealias Reply = Session
    }

    /// `logout`: revokes the session the refresh token belongs to.
    public enum Logout: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "logout"
        public typealias Request = RefreshRequest
        public typealias Reply = Empty
    }

    /// `jwks`: the public keys that verify access tokens.
    public enum JWKS: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "jwks"
        public typealias Request = Empty

        /// A JSON Web Key Set.
        public struct Reply: Codable, Sendable, Equatable {
            public var keys: [Key]
            public init(keys: [Key]) { self.keys = keys }
        }

        /// One public key (RFC 7517 / RFC 8037).
        public struct Key: Codable, Sendable, Equatable {
            public var kty: String
            public var crv: String
            public var x: String
            public var kid: String
            public var alg: String
            public var use: String
            public init(kty: String, crv: String, x: String, kid: String, alg: String, use: String) {
                self.kty = kty
                self.crv = crv
                self.x = x
                self.kid = kid
                self.alg = alg
                self.use = use
            }
        }
    }
}

extension Auth {
    /// An account as its owner sees it.
    public struct Profile: Codable, Sendable, Equatable {
        public var userId: String
        public var username: String
        public var email: String?
        public var phone: String?
        public var displayName: String?
        public var roles: [String]
        public init(
            userId: String, username: String, email: String?, phone: String?, displayName: String?, roles: [String]
        ) {
            self.userId = userId
            self.username = username
            self.email = email
            self.phone = phone
            self.displayName = displayName
            self.roles = roles
        }
    }

    /// `get_profile`: the caller's own account (the actor in the metadata).
    public enum GetProfile: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "get_profile"
        public typealias Request = Empty
        public typealias Reply = Profile
    }
}
