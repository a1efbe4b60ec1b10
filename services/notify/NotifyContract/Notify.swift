import Contract
import Foundation

/// Operations of the `notify` service: e-mail, push and in-app notifications, preferences and
/// schedules.
public enum Notify {
    /// The channels a notification can go out on.
    public enum Channel {
        /// E-mail over SMTP.
        public static let email = "email"
        /// APNs (`ios`) or FCM (`android`, `web`) to every device of the user.
        public static let push = "push"
        /// The in-app inbox (and its live stream).
        public static let inapp = "inapp"
        /// All of them.
        public static let all = [email, push, inapp]
    }

    /// A notification kind: the name of a template set in notify's catalogue (`order_failed`).
    /// The set is open (a service adds a kind with its templates), so this is a struct, not an
    /// enum; it travels as its name, a plain JSON string.
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        public var description: String { rawValue }

        /// Auth's password-reset mail (critical). Variables: `username`, `token`, `expiresAt`.
        public static let passwordReset = Kind("password_reset")
        /// Auth's username reminder (critical). Variables: `usernames`.
        public static let usernameReminder = Kind("username_reminder")
        /// PostcardBuddy: an order went through. Variables: `orderId`.
        public static let orderSucceeded = Kind("order_succeeded")
        /// PostcardBuddy: every card of a postcard order is in the post ("Your postcard is on its
        /// way"), once per order. Variables: `orderId`.
        public static let orderMailed = Kind("order_mailed")
        /// PostcardBuddy: an order failed. Variables: `orderId`, `reason`.
        public static let orderFailed = Kind("order_failed")
        /// PostcardBuddy and Gifter: money was given back on an order. Variables: `orderId`,
        /// `amount` (as the buyer reads it, e.g. `12.50 EUR`).
        public static let orderRefunded = Kind("order_refunded")
        /// PostcardBuddy and Gifter: the buyer's bank opened a dispute on an order's payment.
        /// Variables: `orderId`.
        public static let orderDisputed = Kind("order_disputed")
        /// A print job failed. Variables: `jobId`, `reason`.
        public static let printJobFailed = Kind("print_job_failed")
        /// NavUP: a weekly step goal was reached. Variables: `goal`, `reward`.
        public static let goalCompleted = Kind("goal_completed")
        /// PostcardBuddy: an e-card to a recipient. Variables: `senderName`, `imageUrl`, `message`.
        public static let ecard = Kind("ecard")
        /// TapWater and others: a reminder a user scheduled. Variables: `text`.
        public static let reminder = Kind("reminder")
        /// TapWater: a reminder toward the daily goal, scheduled from the user's plan; its `text`
        /// is asked of hydration when it fires (none is sent once the goal is met).
        public static let hydrationReminder = Kind("hydration_reminder")
        /// PolitiMap: a new bill. Variables: `title`, `level`.
        public static let newBill = Kind("new_bill")
        /// Gifter: someone asked to be friends. Variables: `fromName`.
        public static let friendRequest = Kind("friend_request")
        /// Gifter: a friend request was accepted. Variables: `byName`.
        public static let friendAccepted = Kind("friend_accepted")
        /// Gifter: a friend sent a gift (never its price). Variables: `fromName`, `title`.
        public static let giftReceived = Kind("gift_received")
        /// NavUP: a class of the student's starts soon (routing's `routing.class_reminder`, for
        /// students who switched class reminders on). Variables: `module`, `moduleName`,
        /// `classKind`, `start`, `location`.
        public static let classReminder = Kind("class_reminder")
        /// NavUP: an occurrence of a class of the student's moved to another time or place
        /// (`routing.class_changed`). Variables: `module`, `moduleName`, `classKind`, `start`,
        /// `location`, `newStart`, `newLocation`.
        public static let classMoved = Kind("class_moved")
        /// NavUP: a class of the student's moves, from one occurrence on, to another time or place
        /// every week (`routing.class_changed` of a series: one notification, not one per
        /// occurrence). Variables: `module`, `moduleName`, `classKind`, `from` (the first moved
        /// occurrence's date), `start`, `location`, `newStart`, `newLocation` (that occurrence's).
        public static let classSeriesMoved = Kind("class_series_moved")
        /// NavUP: an occurrence of a class of the student's is cancelled (`routing.class_changed`).
        /// Variables: `module`, `moduleName`, `classKind`, `start`, `location`.
        public static let classCancelled = Kind("class_cancelled")
        /// Anything else a service wants to say. Variables: `title`, `body`.
        public static let message = Kind("message")
    }

    /// Event `notify.device_token_refused`: the push provider said a directly addressed
    /// device's token is no longer valid (APNs `Unregistered`/`BadDeviceToken`, FCM
    /// `UNREGISTERED`). The sender that owns the device (civic) forgets it, if its token is
    /// still the one refused (a device may have sent a new one since).
    public struct DeviceTokenRefused: Codable, Sendable, Equatable {
        public static let topic = "notify.device_token_refused"
        /// The sender's id for the device (``PushDevice/deviceId``).
        public var deviceId: String
        /// The refused token's SHA-256, lower-case hex: the token itself is a secret.
        public var tokenSHA256: String
        /// The provider's reason.
        public var reason: String
        public init(deviceId: String, tokenSHA256: String, reason: String) {
            self.deviceId = deviceId
            self.tokenSHA256 = tokenSHA256
            self.reason = reason
        }
    }

    /// A device addressed directly, without an account (PolitiMap's new-bill subscriptions).
    public struct PushDevice: Codable, Sendable, Equatable {
        /// The sender's own id for the device (civic: the subscription id); the delivery log
        /// names it, never the token.
        public var deviceId: String
        /// The APNs (`ios`) or FCM (`android`, `web`) token: a secret.
        public var token: String
        /// `ios`, `android` or `web`.
        public var platform: String
        /// The app, for the APNs topic (e.g. `politimap`).
        public var app: String?
        /// `production` (default) or `sandbox`, for `ios`.
        public var apnsEnvironment: String?
        public init(deviceId: String, token: String, platform: String, app: String?, apnsEnvironment: String? = nil) {
            self.deviceId = deviceId
            self.token = token
            self.platform = platform
            self.app = app
            self.apnsEnvironment = apnsEnvironment
        }
    }

    /// `send`: one notification, by any service. Idempotent by `notificationId`: the same id with
    /// the same content answers `created: false`; with different content, `conflict`.
    public enum Send: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "send"

        public struct Request: Codable, Sendable, Equatable {
            /// The idempotency key (a UUID chosen by the caller).
            public var notificationId: String
            /// The recipient account, for inbox, push and preferences; nil for address-only mail.
            public var userId: String?
            /// An e-mail address that overrides the account's.
            public var email: String?
            /// A template kind.
            public var kind: Kind
            /// `en` or `sv`; defaults to the user's locale, then `en`.
            public var locale: String?
            /// The template's variables.
            public var variables: [String: String]
            /// One device to push to instead of an account's (PolitiMap's subscriptions have no
            /// account): push only, no inbox, no preferences.
            public var device: PushDevice?
            /// The moment after which the e-mail and push are not worth sending (a class
            /// reminder: the class's start): one held past it (by quiet hours, retries or a
            /// backlog) is not sent, and logged `skipped`; the inbox item stays. Nil: always sent.
            public var notAfter: Date?
            public init(
                notificationId: String, userId: String? = nil, email: String? = nil, kind: Kind,
                locale: String? = nil, variables: [String: String] = [:], device: PushDevice? = nil,
                notAfter: Date? = nil
            ) {
                self.notificationId = notificationId
                self.userId = userId
                self.email = email
                self.kind = kind
                self.locale = locale
                self.variables = variables
                self.device = device
                self.notAfter = notAfter
            }
        }

        public struct Reply: Codable, Sendable, Equatable {
            public var notificationId: String
            /// False when the id was already known (nothing new is sent).
            public var created: Bool
            /// The channels it goes out on after preferences.
            public var channels: [String]
            public init(notificationId: String, created: Bool, channels: [String]) {
                self.notificationId = notificationId
                self.created = created
                self.channels = channels
            }
        }
    }

    /// One inbox item.
    public struct InboxItem: Codable, Sendable, Equatable {
        public var notificationId: String
        public var kind: Kind
        public var title: String
        public var body: String
        /// Milliseconds since the Unix epoch.
        public var createdAt: Int64
        public var read: Bool
        public init(notificationId: String, kind: Kind, title: String, body: String, createdAt: Int64, read: Bool) {
            self.notificationId = notificationId
            self.kind = kind
            self.title = title
            self.body = body
            self.createdAt = createdAt
            self.read = read
        }
    }

    /// `list_inbox`: the caller's inbox, newest first, a page at a time.
    public enum ListInbox: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "list_inbox"

        public struct Request: Codable, Sendable, Equatable {
            /// Only unread items (the API's `unread`, default false).
            public var unreadOnly: Bool
            /// From the previous page's `nextCursor`.
            public var cursor: String?
            public var limit: Int?
            public init(unreadOnly: Bool = false, cursor: String? = nil, limit: Int? = nil) {
                self.unreadOnly = unreadOnly
                self.cursor = cursor
                self.limit = limit
            }

            private enum CodingKeys: String, CodingKey {
                case unreadOnly = "unread"
                case cursor, limit
            }

            // The query parameters as the API names them, each optional.
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                unreadOnly = try container.decodeIfPresent(Bool.self, forKey: .unreadOnly) ?? false
                cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
                limit = try container.decodeIfPresent(Int.self, forKey: .limit)
            }
        }

        public struct Reply: Codable, Sendable, Equatable {
            public var items: [InboxItem]
            public var nextCursor: String?
            public var unreadCount: Int
            public init(items: [InboxItem], nextCursor: String?, unreadCount: Int) {
                self.items = items
                self.nextCursor = nextCursor
                self.unreadCount = unreadCount
            }
        }
    }

    /// `mark_read`: marks one of the caller's notifications read; answers the unread count.
    public enum MarkRead: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "mark_read"

        public struct Request: Codable, Sendable, Equatable {
            public var notificationId: String
            public init(notificationId: String) { self.notificationId = notificationId }
        }

        public struct Reply: Codable, Sendable, Equatable {
            public var unreadCount: Int
            public init(unreadCount: Int) { self.unreadCount = unreadCount }
        }
    }

    /// One opt-out (or opt-in again) for a kind on a channel.
    public struct ChannelPreference: Codable, Sendable, Equatable, Hashable {
        public var kind: Kind
        public var channel: String
        public var enabled: Bool
        public init(kind: Kind, channel: String, enabled: Bool) {
            self.kind = kind
            self.channel = channel
            self.enabled = enabled
        }
    }

    /// Quiet hours in the user's time zone, `HH:mm` to `HH:mm` (may span midnight).
    public struct QuietHours: Codable, Sendable, Equatable {
        public var start: String
        public var end: String
        public init(start: String, end: String) {
            self.start = start
            self.end = end
        }
    }

    /// A user's notification settings.
    public struct Preferences: Codable, Sendable, Equatable {
        /// An IANA time zone, e.g. `Europe/Stockholm` (default `UTC`).
        public var timeZone: String
        /// Non-critical e-mail and push wait until these end; nil for none.
        public var quietHours: QuietHours?
        /// `en` or `sv`.
        public var locale: String?
        /// The channels switched off or on again; critical kinds ignore them.
        public var channels: [ChannelPreference]
        public init(timeZone: String, quietHours: QuietHours?, locale: String?, channels: [ChannelPreference]) {
            self.timeZone = timeZone
            self.quietHours = quietHours
            self.locale = locale
            self.channels = channels
        }
    }

    /// `get_preferences`: the caller's settings.
    public enum GetPreferences: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "get_preferences"
        public typealias Request = Empty
        public typealias Reply = Preferences
    }

    /// `set_preferences`: replaces the caller's settings; opting out of a critical kind is
    /// `failed_precondition`.
    public enum SetPreferences: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "set_preferences"
        public typealias Request = Preferences
        public typealias Reply = Preferences
    }

    /// A schedule: once at `at`, or at `timesOfDay` (`HH:mm`) on `daysOfWeek` (1 = Monday ...
    /// 7 = Sunday; empty means every day) in `timeZone`.
    public struct Schedule: Codable, Sendable, Equatable {
        public var scheduleId: String
        public var kind: Kind
        public var variables: [String: String]
        /// Milliseconds since the Unix epoch, for a one-off.
        public var at: Int64?
        public var timesOfDay: [String]
        public var daysOfWeek: [Int]
        public var timeZone: String
        /// The next occurrence, nil when a one-off has happened.
        public var nextAt: Int64?
        public init(
            scheduleId: String, kind: Kind, variables: [String: String], at: Int64?, timesOfDay: [String],
            daysOfWeek: [Int], timeZone: String, nextAt: Int64?
        ) {
            self.scheduleId = scheduleId
            self.kind = kind
            self.variables = variables
            self.at = at
            self.timesOfDay = timesOfDay
            self.daysOfWeek = daysOfWeek
            self.timeZone = timeZone
            self.nextAt = nextAt
        }
    }

    /// What `create_schedule` takes; `variables` defaults to none.
    public struct ScheduleRequest: Codable, Sendable, Equatable {
        /// Default `reminder`.
        public var kind: Kind?
        public var variables: [String: String]
        public var at: Int64?
        public var timesOfDay: [String]?
        public var daysOfWeek: [Int]?
        /// Default: the user's time zone.
        public var timeZone: String?
        public init(
            kind: Kind? = nil, variables: [String: String] = [:], at: Int64? = nil, timesOfDay: [String]? = nil,
            daysOfWeek: [Int]? = nil, timeZone: String? = nil
        ) {
            self.kind = kind
            self.variables = variables
            self.at = at
            self.timesOfDay = timesOfDay
            self.daysOfWeek = daysOfWeek
            self.timeZone = timeZone
        }

        // The API may leave `variables` out or send null: none.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decodeIfPresent(Kind.self, forKey: .kind)
            variables = try container.decodeIfPresent([String: String].self, forKey: .variables) ?? [:]
            at = try container.decodeIfPresent(Int64.self, forKey: .at)
            timesOfDay = try container.decodeIfPresent([String].self, forKey: .timesOfDay)
            daysOfWeek = try container.decodeIfPresent([Int].self, forKey: .daysOfWeek)
            timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        }
    }

    /// `create_schedule`: a one-off or recurring notification to the caller.
    public enum CreateSchedule: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "create_schedule"
        public typealias Request = ScheduleRequest
        public typealias Reply = Schedule
    }

    /// The caller's schedules.
    /// `list_schedules`: the caller's schedules, oldest first, a keyset page at a time.
    public enum ListSchedules: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "list_schedules"
        public static let pageSize = PageSize(default: 50, max: 200)
        public typealias Request = PageRequest
        public typealias Reply = Page<Schedule>
    }

    /// `delete_schedule`: removes one of the caller's schedules.
    public enum DeleteSchedule: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "delete_schedule"

        public struct Request: Codable, Sendable, Equatable {
            public var scheduleId: String
            public init(scheduleId: String) { self.scheduleId = scheduleId }
        }

        public typealias Reply = Empty
    }

    /// One line of the delivery log.
    public struct Delivery: Codable, Sendable, Equatable {
        public var notificationId: String
        public var channel: String
        /// `sent`, `skipped`, `retry`, `dead`, `token_removed` or `config_error` (a push refused
        /// because of our set-up; the token is kept).
        public var outcome: String
        public var detail: String?
        /// Milliseconds since the Unix epoch.
        public var at: Int64
        public init(notificationId: String, channel: String, outcome: String, detail: String?, at: Int64) {
            self.notificationId = notificationId
            self.channel = channel
            self.outcome = outcome
            self.detail = detail
            self.at = at
        }
    }

    /// `list_deliveries`: the caller's delivery log, newest first (at most 200 lines).
    public enum ListDeliveries: ServiceOperation {
        public static let service = ServiceName.notify
        public static let name = "list_deliveries"
        public typealias Request = Empty

        public struct Reply: Codable, Sendable, Equatable {
            public var deliveries: [Delivery]
            public init(deliveries: [Delivery]) { self.deliveries = deliveries }
        }
    }
}
