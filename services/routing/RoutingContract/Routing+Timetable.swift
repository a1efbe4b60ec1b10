import Contract
import Foundation

extension Routing {
    /// The class kinds of a meeting.
    public static let meetingKinds = ["lecture", "tutorial", "practical"]

    /// `import_timetable` (admin): modules and class meetings from an iCalendar file or the
    /// timetable CSV; meetings are matched on their UID, so importing the same file again changes
    /// nothing.
    public enum ImportTimetable: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "import_timetable"
        public struct Request: Codable, Sendable, Equatable {
            /// `ical` or `csv`.
            public var format: String
            public var text: String
            public init(format: String, text: String) {
                self.format = format
                self.text = text
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var modulesCreated: Int
            public var modulesUpdated: Int
            public var meetingsCreated: Int
            public var meetingsUpdated: Int
            /// Meetings already stored exactly as the file has them.
            public var meetingsUnchanged: Int
            /// Meetings the file withdrew (`STATUS:CANCELLED`).
            public var meetingsCancelled: Int
            /// Locations no venue is named after (their meetings are kept, without a venue).
            public var unmatchedLocations: [String]
            public init(
                modulesCreated: Int, modulesUpdated: Int, meetingsCreated: Int, meetingsUpdated: Int,
                meetingsUnchanged: Int, meetingsCancelled: Int, unmatchedLocations: [String]
            ) {
                self.modulesCreated = modulesCreated
                self.modulesUpdated = modulesUpdated
                self.meetingsCreated = meetingsCreated
                self.meetingsUpdated = meetingsUpdated
                self.meetingsUnchanged = meetingsUnchanged
                self.meetingsCancelled = meetingsCancelled
                self.unmatchedLocations = unmatchedLocations
            }
        }
    }

    /// A module code list.
    public struct ModuleCodes: Codable, Sendable, Equatable {
        public var codes: [String]
        public init(codes: [String]) { self.codes = codes }
    }

    /// `set_my_modules`: the caller's modules, replacing the list before (codes normalised,
    /// e.g. `cos301` → `COS 301`); an unknown code is a 400 listing them.
    public enum SetMyModules: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "set_my_modules"
        public typealias Request = ModuleCodes
        public typealias Reply = ModuleCodes
    }

    /// Where a class meets.
    public struct ClassVenue: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var building: String?
        public var level: Int
        public var lat: Double
        public var lon: Double
        public init(id: String, name: String, building: String?, level: Int, lat: Double, lon: Double) {
            self.id = id
            self.name = name
            self.building = building
            self.level = level
            self.lat = lat
            self.lon = lon
        }
    }

    /// One class that takes place.
    public struct ClassOccurrence: Codable, Sendable, Equatable {
        public var meetingId: String
        public var moduleCode: String
        public var moduleName: String
        /// `lecture`, `tutorial` or `practical`.
        public var kind: String
        public var start: Date
        public var end: Date
        /// The location as the timetable gives it.
        public var location: String
        /// The venue it was matched to, if any.
        public var venue: ClassVenue?
        public init(
            meetingId: String, moduleCode: String, moduleName: String, kind: String, start: Date, end: Date,
            location: String, venue: ClassVenue?
        ) {
            self.meetingId = meetingId
            self.moduleCode = moduleCode
            self.moduleName = moduleName
            self.kind = kind
            self.start = start
            self.end = end
            self.location = location
            self.venue = venue
        }
    }

    /// `my_timetable`: the caller's classes between `from` and `to` (RFC 3339; default: now to a
    /// week later; at most 62 days), cancelled ones left out, with the private feed's address.
    public enum MyTimetable: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "my_timetable"
        public struct Request: Codable, Sendable, Equatable {
            public var from: String?
            public var to: String?
            public init(from: String? = nil, to: String? = nil) {
                self.from = from
                self.to = to
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var from: Date
            public var to: Date
            public var modules: [String]
            public var items: [ClassOccurrence]
            /// The caller's private iCalendar feed, for a phone's calendar (no sign-in needed:
            /// whoever has the address can read the timetable; revoke it to make a new one).
            public var feedUrl: String
            public init(from: Date, to: Date, modules: [String], items: [ClassOccurrence], feedUrl: String) {
                self.from = from
                self.to = to
                self.modules = modules
                self.items = items
                self.feedUrl = feedUrl
            }
        }
    }

    /// `timetable_feed`: the iCalendar feed named by its secret (no caller needed).
    public enum TimetableFeed: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "timetable_feed"
        public struct Request: Codable, Sendable, Equatable {
            public var secret: String
            public init(secret: String) { self.secret = secret }
        }
        public struct Reply: Codable, Sendable, Equatable {
            /// `text/calendar` content.
            public var calendar: String
            public init(calendar: String) { self.calendar = calendar }
        }
    }

    /// `revoke_timetable_feed`: the caller's feed address stops working; the next timetable read
    /// makes a new one.
    public enum RevokeTimetableFeed: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "revoke_timetable_feed"
        public typealias Request = Empty
        public typealias Reply = Empty
    }
}

extension Routing {
    /// `next_class`: a route from `from` to the venue of the caller's next class starting within
    /// 12 hours, and when to leave; `not_found` when there is none.
    public enum NextClass: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "next_class"
        public struct Request: Codable, Sendable, Equatable {
            public var from: Place
            public var profile: String?
            public init(from: Place, profile: String? = nil) {
                self.from = from
                self.profile = profile
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            /// The class.
            public var occurrence: ClassOccurrence
            public var route: Route
            /// Start minus the route's ETA (with the live crowd).
            public var leaveAt: Date
            /// Seconds between arriving and the start; negative when the caller will be late.
            public var spareSeconds: Int
            /// Whether leaving now still arrives after the start.
            public var late: Bool
            public init(occurrence: ClassOccurrence, route: Route, leaveAt: Date, spareSeconds: Int, late: Bool) {
                self.occurrence = occurrence
                self.route = route
                self.leaveAt = leaveAt
                self.spareSeconds = spareSeconds
                self.late = late
            }
        }
    }
}

extension Routing {
    /// A module with the number of its class meetings.
    public struct Module: Codable, Sendable, Equatable {
        public var code: String
        public var name: String
        public var faculty: String
        public var meetings: Int
        public init(code: String, name: String, faculty: String, meetings: Int) {
            self.code = code
            self.name = name
            self.faculty = faculty
            self.meetings = meetings
        }
    }

    /// `list_modules` (admin): every module, by code.
    public enum ListModules: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "list_modules"
        public typealias Request = Empty
        public struct Reply: Codable, Sendable, Equatable {
            public var items: [Module]
            public init(items: [Module]) { self.items = items }
        }
    }

    /// A module code in a request.
    public struct ByModuleCode: Codable, Sendable, Equatable {
        public var code: String
        public init(code: String) { self.code = code }
    }

    /// `delete_module` (admin): a module with its meetings and enrolments.
    public enum DeleteModule: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "delete_module"
        public typealias Request = ByModuleCode
        public typealias Reply = Empty
    }
}
