import Contract
import Foundation

extension Routing {
    /// A student's class reminders: `minutesBefore` a class starts (5 to 120), or nil when they
    /// are off (the default).
    public struct ClassReminderSettings: Codable, Sendable, Equatable {
        public var minutesBefore: Int?
        public init(minutesBefore: Int?) { self.minutesBefore = minutesBefore }

        enum CodingKeys: String, CodingKey { case minutesBefore }

        /// Writes `minutesBefore: null` when off (rather than leaving the key out).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(minutesBefore, forKey: .minutesBefore)
        }
    }

    /// `get_class_reminders`: the caller's class-reminder setting.
    public enum GetClassReminders: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "get_class_reminders"
        public typealias Request = Empty
        public typealias Reply = ClassReminderSettings
    }

    /// `set_class_reminders`: switches the caller's class reminders on (`minutesBefore` 5...120)
    /// or off (null).
    public enum SetClassReminders: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "set_class_reminders"
        public typealias Request = ClassReminderSettings
        public typealias Reply = ClassReminderSettings
    }

    /// Event `routing.class_changed`: an occurrence of a class in the next
    /// ``ClassChanged/horizonDays`` days was moved (another time or place) or cancelled by an
    /// import or an admin's deletion, or a series of them moved from that occurrence on (every
    /// later one at that weekday and time moves the same way: one event for the series);
    /// appended in the transaction that made the change. notify sends each enrolled student a
    /// `class_moved`, `class_series_moved` or `class_cancelled` notification.
    public struct ClassChanged: Codable, Sendable, Equatable {
        public static let topic = "routing.class_changed"
        /// Changes further ahead than this are not announced (the timetable shows them).
        public static let horizonDays = 7
        /// `change` of an occurrence at another time or place.
        public static let moved = "moved"
        /// `change` of an occurrence that no longer happens.
        public static let cancelled = "cancelled"
        /// `change` of a series: this occurrence and every later one at its weekday and time
        /// move the same way (the start and place fields are this first one's).
        public static let seriesMoved = "series_moved"

        /// `moved`, `series_moved` or `cancelled`.
        public var change: String
        public var moduleCode: String
        public var moduleName: String
        /// `lecture`, `tutorial` or `practical`.
        public var classKind: String
        /// The start it had.
        public var start: Date
        /// That start as campus wall-clock time, `YYYY-MM-DD HH:MM`.
        public var startLocal: String
        /// Where it was.
        public var location: String
        /// The new start (moved and series_moved only).
        public var newStart: Date?
        /// `YYYY-MM-DD HH:MM` in the campus zone (moved and series_moved only).
        public var newStartLocal: String?
        /// Where it is now (moved and series_moved only).
        public var newLocation: String?
        /// The students enrolled in the module (lower-case UUIDs).
        public var userIds: [String]
        public init(
            change: String, moduleCode: String, moduleName: String, classKind: String, start: Date,
            startLocal: String, location: String, newStart: Date?, newStartLocal: String?, newLocation: String?,
            userIds: [String]
        ) {
            self.change = change
            self.moduleCode = moduleCode
            self.moduleName = moduleName
            self.classKind = classKind
            self.start = start
            self.startLocal = startLocal
            self.location = location
            self.newStart = newStart
            self.newStartLocal = newStartLocal
            self.newLocation = newLocation
            self.userIds = userIds
        }
    }

    /// Event `routing.class_reminder`: an occurrence starts within the reminder time of these
    /// students (each student at most once per occurrence); notify sends each a `class_reminder`.
    public struct ClassReminder: Codable, Sendable, Equatable {
        public static let topic = "routing.class_reminder"
        public var meetingId: String
        public var moduleCode: String
        public var moduleName: String
        public var classKind: String
        public var start: Date
        /// `YYYY-MM-DD HH:MM` in the campus zone.
        public var startLocal: String
        /// The venue's name, else the location as the timetable gives it.
        public var location: String
        /// The students to remind (lower-case UUIDs).
        public var userIds: [String]
        public init(
            meetingId: String, moduleCode: String, moduleName: String, classKind: String, start: Date,
            startLocal: String, location: String, userIds: [String]
        ) {
            self.meetingId = meetingId
            self.moduleCode = moduleCode
            self.moduleName = moduleName
            self.classKind = classKind
            self.start = start
            self.startLocal = startLocal
            self.location = location
            self.userIds = userIds
        }
    }
}
