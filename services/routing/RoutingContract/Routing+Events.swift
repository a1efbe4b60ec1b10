import Contract
import Foundation

extension Routing {
    /// The kinds of campus event.
    public static let eventKinds = ["sport", "cultural"]

    /// A sports or cultural event on campus, maintained by admins.
    public struct CampusEvent: Codable, Sendable, Equatable {
        public var id: String
        public var title: String
        /// `sport` or `cultural`.
        public var kind: String
        /// Where it happens, when it is at a known venue.
        public var venueId: String?
        /// That venue's name, for the list.
        public var venueName: String?
        public var startsAt: Date
        public var endsAt: Date
        public var description: String
        /// Module codes the event is for (empty: none in particular).
        public var modules: [String]
        /// Faculties the event is for (empty: none in particular).
        public var faculties: [String]
        public init(
            id: String, title: String, kind: String, venueId: String?, venueName: String?, startsAt: Date,
            endsAt: Date, description: String, modules: [String] = [], faculties: [String] = []
        ) {
            self.modules = modules
            self.faculties = faculties
            self.id = id
            self.title = title
            self.kind = kind
            self.venueId = venueId
            self.venueName = venueName
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.description = description
        }
    }

    /// An event as an admin writes it.
    public struct EventDraft: Codable, Sendable, Equatable {
        public var title: String
        public var kind: String
        public var venueId: String?
        public var startsAt: Date
        public var endsAt: Date
        public var description: String?
        /// Module codes the event is for.
        public var modules: [String]?
        /// Faculties the event is for.
        public var faculties: [String]?
        public init(
            title: String, kind: String, venueId: String? = nil, startsAt: Date, endsAt: Date,
            description: String? = nil, modules: [String]? = nil, faculties: [String]? = nil
        ) {
            self.modules = modules
            self.faculties = faculties
            self.title = title
            self.kind = kind
            self.venueId = venueId
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.description = description
        }
    }

    /// `list_events`: events that have not ended yet, soonest first, by kind and/or venue; a page
    /// at a time (``KeysetCursor`` on the start time and id).
    public enum ListEvents: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "list_events"
        public static let pageSize = PageSize(default: 50, max: 200)
        public struct Request: Codable, Sendable, Equatable {
            public var kind: String?
            public var venueId: String?
            /// Only events starting before this time.
            public var before: Date?
            /// 1 to 200 (default 50).
            public var limit: Int?
            /// The `nextCursor` of the previous page.
            public var cursor: String?
            public init(
                kind: String? = nil, venueId: String? = nil, before: Date? = nil, limit: Int? = nil,
                cursor: String? = nil
            ) {
                self.kind = kind
                self.venueId = venueId
                self.before = before
                self.limit = limit
                self.cursor = cursor
            }
        }
        public typealias Reply = Page<CampusEvent>
    }

    /// `create_event` (admin).
    public enum CreateEvent: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "create_event"
        public typealias Request = EventDraft
        public typealias Reply = CampusEvent
    }

    /// An event id with its new contents: `id` beside the draft's members in one object.
    public typealias EventUpdate = Identified<EventDraft>

    /// `update_event` (admin).
    public enum UpdateEvent: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "update_event"
        public typealias Request = EventUpdate
        public typealias Reply = CampusEvent
    }

    /// `delete_event` (admin).
    public enum DeleteEvent: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "delete_event"
        public typealias Request = ByID
        public typealias Reply = Empty
    }
}

extension Routing {
    /// A location a user saved, seen only by that user.
    public struct Pin: Codable, Sendable, Equatable {
        public var id: String
        public var lat: Double
        public var lon: Double
        public var level: Int
        public var description: String
        public var createdAt: Date
        public init(id: String, lat: Double, lon: Double, level: Int, description: String, createdAt: Date) {
            self.id = id
            self.lat = lat
            self.lon = lon
            self.level = level
            self.description = description
            self.createdAt = createdAt
        }
    }

    /// A pin to save.
    public struct PinDraft: Codable, Sendable, Equatable {
        public var lat: Double
        public var lon: Double
        public var level: Int?
        public var description: String
        public init(lat: Double, lon: Double, level: Int? = nil, description: String) {
            self.lat = lat
            self.lon = lon
            self.level = level
            self.description = description
        }
    }

    /// `list_pins`: the caller's pins, newest first, a page at a time.
    public enum ListPins: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "list_pins"
        public static let pageSize = PageSize(default: 50, max: 500)
        public typealias Request = PageRequest
        public typealias Reply = Page<Pin>
    }

    /// `save_pin`: a new pin of the caller's.
    public enum SavePin: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "save_pin"
        public typealias Request = PinDraft
        public typealias Reply = Pin
    }

    /// `delete_pin`: one of the caller's pins (another user's is `not_found`).
    public enum DeletePin: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "delete_pin"
        public typealias Request = ByID
        public typealias Reply = Empty
    }
}

extension Routing {
    /// An upcoming event and whether (and why) it concerns the caller.
    public struct MyEvent: Codable, Sendable, Equatable {
        public var event: CampusEvent
        public var concernsMe: Bool
        /// Why: `module:COS 301`, `faculty:Humanities`, `venue:<venue id>` (a venue of one of the
        /// caller's classes).
        public var because: [String]
        public init(event: CampusEvent, concernsMe: Bool, because: [String]) {
            self.event = event
            self.concernsMe = concernsMe
            self.because = because
        }
    }

    /// `my_events`: upcoming events, those that concern the caller (a module of theirs, a
    /// faculty of one of their modules, a venue where they have a class) first, each group
    /// soonest first.
    public enum MyEvents: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "my_events"
        public static let pageSize = PageSize(default: 50, max: 200)
        public struct Request: Codable, Sendable, Equatable {
            /// 1 to 200 (default 50).
            public var limit: Int?
            public init(limit: Int? = nil) { self.limit = limit }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var items: [MyEvent]
            public init(items: [MyEvent]) { self.items = items }
        }
    }
}
