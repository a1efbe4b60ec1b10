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
        public init(
            id: String, title: String, kind: String, venueId: String?, venueName: String?, startsAt: Date,
            endsAt: Date, description: String
        ) {
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
        public init(
            title: String, kind: String, venueId: String? = nil, startsAt: Date, endsAt: Date,
            description: String? = nil
        ) {
            self.title = title
            self.kind = kind
            self.venueId = venueId
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.description = description
        }
    }

    /// `list_events`: events that have not ended yet, soonest first, by kind and/or venue.
    public enum ListEvents: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "list_events"
        public struct Request: Codable, Sendable, Equatable {
            public var kind: String?
            public var venueId: String?
            /// Only events starting before this time.
            public var before: Date?
            public var limit: Int?
            public init(kind: String? = nil, venueId: String? = nil, before: Date? = nil, limit: Int? = nil) {
                self.kind = kind
                self.venueId = venueId
                self.before = before
                self.limit = limit
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var events: [CampusEvent]
            public init(events: [CampusEvent]) { self.events = events }
        }
    }

    /// `create_event` (admin).
    public enum CreateEvent: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "create_event"
        public typealias Request = EventDraft
        public typealias Reply = CampusEvent
    }

    /// An event id with its new contents.
    public struct EventUpdate: Codable, Sendable, Equatable {
        public var id: String
        public var event: EventDraft
        public init(id: String, event: EventDraft) {
            self.id = id
            self.event = event
        }
    }

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

    /// `list_pins`: the caller's pins, newest first.
    public enum ListPins: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "list_pins"
        /// Pins on a page when the request names no limit, and the most it may name.
        public static let defaultLimit = 50
        public static let maxLimit = 500
        public struct Request: Codable, Sendable, Equatable {
            /// The `nextCursor` of the previous page.
            public var cursor: String?
            /// 1 to ``maxLimit`` (default ``defaultLimit``).
            public var limit: Int?
            public init(cursor: String? = nil, limit: Int? = nil) {
                self.cursor = cursor
                self.limit = limit
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var items: [Pin]
            /// Where the next page starts; nil on the last page.
            public var nextCursor: String?
            public init(items: [Pin], nextCursor: String? = nil) {
                self.items = items
                self.nextCursor = nextCursor
            }
        }
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
