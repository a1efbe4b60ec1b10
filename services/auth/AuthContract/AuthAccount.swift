import Contract
import Foundation

/// Account management operations of the `auth` service: profile, password, roles, devices,
/// and recovery by e-mail.
extension Auth {
    /// The roles an account can hold (the wire's ``Contract/Role``).
    public typealias Role = Contract.Role

    /// Changes to a profile: a field left out stays as it is; an empty string clears e-mail,
    /// phone or display name. A username cannot be cleared: a new one follows the rules of
    /// registration (``Username``) and must not be taken.
    public struct ProfileChanges: Codable, Sendable, Equatable {
        public var username: String?
        public var email: String?
        public var phone: String?
        public var displayName: String?
        public init(username: String? = nil, email: String? = nil, phone: String? = nil, displayName: String? = nil) {
            self.username = username
            self.email = email
            self.phone = phone
            self.displayName = displayName
        }
    }

    /// `update_profile`: the caller changes their own username, e-mail, phone or display name
    /// (`already_exists` when the new username is taken).
    public enum UpdateProfile: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "update_profile"
        public typealias Request = ProfileChanges
        public typealias Reply = Profile
    }

    /// `delete_account`: the caller deletes their own account; sessions and devices go with it.
    public enum DeleteAccount: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "delete_account"
        public typealias Request = Empty
        public typealias Reply = Empty
    }

    /// `change_password`: the current password (lockout rules apply) for a new one; every earlier
    /// session is signed out and a new one returned.
    public enum ChangePassword: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "change_password"

        public struct Request: Codable, Sendable, Equatable {
            public var currentPassword: String
            public var newPassword: String
            public init(currentPassword: String, newPassword: String) {
                self.currentPassword = currentPassword
                self.newPassword = newPassword
            }
        }

        public typealias Reply = Session
    }

    /// `ensure_admin` (admin only; no route of the gateway): what `ADMIN_USERNAME` /
    /// `ADMIN_PASSWORD` do at start, on request: the account is created with the admin role, or
    /// given the role and this password. `backplane-admin create-admin` sends it.
    public enum EnsureAdmin: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "ensure_admin"
        public typealias Request = VerifyPassword.Request
        public typealias Reply = Register.Reply
    }

    /// `grant_roles` (admin only): adds and removes roles of an account.
    public enum GrantRoles: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "grant_roles"

        public struct Request: Codable, Sendable, Equatable {
            public var userId: String
            public var grant: [String]
            public var revoke: [String]
            public init(userId: String, grant: [String] = [], revoke: [String] = []) {
                self.userId = userId
                self.grant = grant
                self.revoke = revoke
            }

            // Either list may be left out of the API's body.
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                userId = try container.decode(String.self, forKey: .userId)
                grant = try container.decodeIfPresent([String].self, forKey: .grant) ?? []
                revoke = try container.decodeIfPresent([String].self, forKey: .revoke) ?? []
            }
        }

        public typealias Reply = Profile
    }
}

extension Auth {
    /// A phone, tablet or browser that receives push notifications.
    public struct Device: Codable, Sendable, Equatable {
        public var deviceId: String
        public var userId: String
        /// The push token from APNs (`ios`) or FCM (`android`, `web`).
        public var token: String
        /// `ios`, `android` or `web`.
        public var platform: String
        public var osVersion: String
        /// Which app registered it, e.g. `tapwater`.
        public var app: String?
        /// Which APNs host a token of an `ios` device belongs to (a development build's token
        /// is only known to the sandbox); unused for other platforms.
        public var apnsEnvironment: APNsEnvironment
        public init(
            deviceId: String, userId: String, token: String, platform: String, osVersion: String, app: String?,
            apnsEnvironment: APNsEnvironment = .production
        ) {
            self.deviceId = deviceId
            self.userId = userId
            self.token = token
            self.platform = platform
            self.osVersion = osVersion
            self.app = app
            self.apnsEnvironment = apnsEnvironment
        }

        enum CodingKeys: String, CodingKey {
            case deviceId, userId, token, platform, osVersion, app, apnsEnvironment
        }

        /// Decodes a device; one from an auth that predates `apnsEnvironment` is `production`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            deviceId = try container.decode(String.self, forKey: .deviceId)
            userId = try container.decode(String.self, forKey: .userId)
            token = try container.decode(String.self, forKey: .token)
            platform = try container.decode(String.self, forKey: .platform)
            osVersion = try container.decode(String.self, forKey: .osVersion)
            app = try container.decodeIfPresent(String.self, forKey: .app)
            apnsEnvironment =
                try container.decodeIfPresent(APNsEnvironment.self, forKey: .apnsEnvironment) ?? .production
        }
    }

    /// The APNs environment a device token was issued for: apps built for development get
    /// sandbox tokens, TestFlight and App Store builds production ones.
    public enum APNsEnvironment: String, Codable, Sendable, Equatable, CaseIterable {
        /// `api.sandbox.push.apple.com`.
        case sandbox
        /// `api.push.apple.com`, the default.
        case production
    }

    /// The platforms a device can have.
    public static let platforms = ["ios", "android", "web"]

    /// `register_device`: the caller's device token; registering a known token again updates it.
    public enum RegisterDevice: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "register_device"

        public struct Request: Codable, Sendable, Equatable {
            public var token: String
            public var platform: String
            public var osVersion: String
            public var app: String?
            /// For `ios`: which APNs environment issued the token (nil: production).
            public var apnsEnvironment: APNsEnvironment?
            public init(
                token: String, platform: String, osVersion: String, app: String? = nil,
                apnsEnvironment: APNsEnvironment? = nil
            ) {
                self.token = token
                self.platform = platform
                self.osVersion = osVersion
                self.app = app
                self.apnsEnvironment = apnsEnvironment
            }
        }

        /// The device; `created` when it is new (201), else the one registered before (200).
        public typealias Reply = Outcome<Device>
    }

    /// `remove_device`: the caller removes one of their devices.
    public enum RemoveDevice: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "remove_device"

        public struct Request: Codable, Sendable, Equatable {
            public var deviceId: String
            public init(deviceId: String) { self.deviceId = deviceId }
        }

        public typealias Reply = Empty
    }

    /// `list_devices`: the caller's own devices, or (for a service calling without an actor, or
    /// an admin) the devices of `userId`; oldest first, a page at a time.
    public enum ListDevices: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "list_devices"
        public static let pageSize = PageSize(default: 50, max: 200)

        public struct Request: Codable, Sendable, Equatable {
            public var userId: String?
            /// The `nextCursor` of the previous page.
            public var cursor: String?
            /// 1 to 200 (default 50).
            public var limit: Int?
            public init(userId: String? = nil, cursor: String? = nil, limit: Int? = nil) {
                self.userId = userId
                self.cursor = cursor
                self.limit = limit
            }
        }

        public typealias Reply = Page<Device>
    }

    /// `forget_device_token`: a push provider said the token is invalid or unregistered (called
    /// by notify, never by the gateway).
    public enum ForgetDeviceToken: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "forget_device_token"

        public struct Request: Codable, Sendable, Equatable {
            public var token: String
            public init(token: String) { self.token = token }
        }

        public struct Reply: Codable, Sendable, Equatable {
            public var removed: Int
            public init(removed: Int) { self.removed = removed }
        }
    }
}

extension Auth {
    /// `request_password_reset`: by username or e-mail; the answer never says whether an account
    /// matched. A match gets a reset token by e-mail (event ``PasswordResetRequested``).
    public enum RequestPasswordReset: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "request_password_reset"

        public struct Request: Codable, Sendable, Equatable {
            public var username: String?
            public var email: String?
            public init(username: String? = nil, email: String? = nil) {
                self.username = username
                self.email = email
            }
        }

        public typealias Reply = Accepted
    }

    /// `confirm_password_reset`: a reset token and a new password; signs out every session and
    /// lifts a login hold.
    public enum ConfirmPasswordReset: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "confirm_password_reset"

        public struct Request: Codable, Sendable, Equatable {
            public var token: String
            public var newPassword: String
            public init(token: String, newPassword: String) {
                self.token = token
                self.newPassword = newPassword
            }
        }

        public typealias Reply = Empty
    }

    /// `request_username_reminder`: mails the usernames registered with an e-mail address, if any
    /// (event ``UsernameReminderRequested``); the answer never says whether there were any.
    public enum RequestUsernameReminder: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "request_username_reminder"

        public struct Request: Codable, Sendable, Equatable {
            public var email: String
            public init(email: String) { self.email = email }
        }

        public typealias Reply = Accepted
    }
}

extension Auth {
    /// Event `auth.password_reset_requested`: mail `token` to `email` (critical: ignores
    /// preferences and quiet hours). The token is single use and expires at `expiresAt`.
    public struct PasswordResetRequested: Codable, Sendable, Equatable {
        public static let topic = "auth.password_reset_requested"
        public var userId: String
        public var username: String
        public var email: String
        public var token: String
        /// Milliseconds since the Unix epoch.
        public var expiresAt: Int64
        public init(userId: String, username: String, email: String, token: String, expiresAt: Int64) {
            self.userId = userId
            self.username = username
            self.email = email
            self.token = token
            self.expiresAt = expiresAt
        }
    }

    /// Event `auth.username_reminder_requested`: mail the `usernames` registered with `email`.
    public struct UsernameReminderRequested: Codable, Sendable, Equatable {
        public static let topic = "auth.username_reminder_requested"
        public var email: String
        public var usernames: [String]
        public init(email: String, usernames: [String]) {
            self.email = email
            self.usernames = usernames
        }
    }

    /// Event `auth.profile_changed`: an account was created or its username, display name, e-mail
    /// or phone changed; the fields are the account's values after the change. Social keeps its
    /// directory from it (and keeps e-mail and phone only as digests).
    public struct ProfileChanged: Codable, Sendable, Equatable {
        public static let topic = "auth.profile_changed"
        public var userId: String
        public var username: String
        public var displayName: String?
        public var email: String?
        public var phone: String?
        public init(userId: String, username: String, displayName: String?, email: String?, phone: String?) {
            self.userId = userId
            self.username = username
            self.displayName = displayName
            self.email = email
            self.phone = phone
        }

        /// The event of `profile`.
        public init(_ profile: Profile) {
            self.init(
                userId: profile.userId, username: profile.username, displayName: profile.displayName,
                email: profile.email, phone: profile.phone)
        }
    }

    /// Event `auth.account_deleted`: other services drop what they keep about `userId`.
    public struct AccountDeleted: Codable, Sendable, Equatable {
        public static let topic = "auth.account_deleted"
        public var userId: String
        public init(userId: String) { self.userId = userId }
    }
}

extension Auth {
    /// How to reach one account: what notify needs to address a mail or a push.
    public struct Contact: Codable, Sendable, Equatable {
        public var userId: String
        public var username: String
        public var email: String?
        public var displayName: String?
        /// The account's push targets, oldest first.
        public var devices: [Device]
        public init(userId: String, username: String, email: String?, displayName: String?, devices: [Device]) {
            self.userId = userId
            self.username = username
            self.email = email
            self.displayName = displayName
            self.devices = devices
        }
    }

    /// `lookup_contacts`: for services only (a request with an actor is `permission_denied`, and
    /// the gateway exposes no route to it): the contacts of up to ``maxUserIds`` accounts in one
    /// call. Accounts that do not exist are left out of the reply.
    public enum LookupContacts: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "lookup_contacts"
        /// The most user ids one request may name.
        public static let maxUserIds = 1000

        public struct Request: Codable, Sendable, Equatable {
            public var userIds: [String]
            public init(userIds: [String]) { self.userIds = userIds }
        }

        public struct Reply: Codable, Sendable, Equatable {
            public var contacts: [Contact]
            public init(contacts: [Contact]) { self.contacts = contacts }
        }
    }
}

extension Auth {
    /// An account as an admin's list shows it: no password hash, no tokens, no contact details.
    public struct UserSummary: Codable, Sendable, Equatable {
        public var userId: String
        public var username: String
        public var displayName: String?
        public var roles: [String]
        public var createdAt: Date
        public init(userId: String, username: String, displayName: String?, roles: [String], createdAt: Date) {
            self.userId = userId
            self.username = username
            self.displayName = displayName
            self.roles = roles
            self.createdAt = createdAt
        }
    }

    /// `list_users` (admin only): accounts, oldest first, a page at a time; `q` keeps those whose
    /// username or e-mail address starts with it (case-insensitive), `role` those holding it.
    public enum ListUsers: ServiceOperation {
        public static let service = ServiceName.auth
        public static let name = "list_users"
        public static let pageSize = PageSize(default: 50, max: 200)
        /// The longest `q`, in characters.
        public static let maxQueryLength = 100

        public struct Request: Codable, Sendable, Equatable {
            /// A prefix of the username or the e-mail address.
            public var q: String?
            /// One of ``Auth/Role/all``.
            public var role: String?
            /// The `nextCursor` of the previous page.
            public var cursor: String?
            /// 1 to 200 (default 50).
            public var limit: Int?
            public init(q: String? = nil, role: String? = nil, cursor: String? = nil, limit: Int? = nil) {
                self.q = q
                self.role = role
                self.cursor = cursor
                self.limit = limit
            }
        }

        public typealias Reply = Page<UserSummary>
    }
}

extension Auth {
    /// The answer to a recovery request, the same whatever happened, so that it tells no one
    /// whether an account matched.
    public struct Accepted: Codable, Sendable, Equatable {
        public var status = "accepted"
        public var message = "If an account matches, an e-mail is on its way."
        public init() {}
    }
}
