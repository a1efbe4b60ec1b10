import Foundation
import Contract

/// Operations of the `routing` service (NavUP): venues, routes, positioning, crowds, map import.
public enum Routing {
    /// A point on campus: latitude, longitude (WGS 84 degrees) and floor.
    public struct Point: Codable, Sendable, Equatable {
        public var lat: Double
        public var lon: Double
        public var level: Int
        public init(lat: Double, lon: Double, level: Int) {
            self.lat = lat
            self.lon = lon
            self.level = level
        }
    }

    /// Where a route starts or ends: a venue, or a position (`level` defaults to 0).
    public struct Place: Codable, Sendable, Equatable {
        public var venueId: String?
        public var lat: Double?
        public var lon: Double?
        public var level: Int?
        public init(venueId: String? = nil, lat: Double? = nil, lon: Double? = nil, level: Int? = nil) {
            self.venueId = venueId
            self.lat = lat
            self.lon = lon
            self.level = level
        }
    }

    /// A point of interest: lecture hall, food court, ablution facility, sport or faculty house,
    /// landmark.
    public struct Venue: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        /// `lecture_hall`, `food_court`, `ablution`, `sport`, `faculty_house`, `landmark`.
        public var kind: String
        public var building: String?
        public var level: Int
        public var lat: Double
        public var lon: Double
        public var description: String
        public var history: String
        /// Metres from the `near` position of a search, when one was given.
        public var distance: Double?
        public init(
            id: String, name: String, kind: String, building: String?, level: Int, lat: Double, lon: Double,
            description: String, history: String, distance: Double? = nil
        ) {
            self.id = id
            self.name = name
            self.kind = kind
            self.building = building
            self.level = level
            self.lat = lat
            self.lon = lon
            self.description = description
            self.history = history
            self.distance = distance
        }
    }

    /// The venue kinds.
    public static let venueKinds = ["lecture_hall", "food_court", "ablution", "sport", "faculty_house", "landmark"]

    /// `search_venues`: by name (typo-tolerant), kind, and/or near a position; a page at a time.
    public enum SearchVenues: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "search_venues"
        public static let pageSize = PageSize(default: 20, max: 100)
        public struct Request: Codable, Sendable, Equatable {
            public var q: String?
            public var kind: String?
            public var nearLat: Double?
            public var nearLon: Double?
            /// 1 to 100 (default 20).
            public var limit: Int?
            /// Metres around `near` (default 150 without a name query).
            public var radius: Double?
            /// The `nextCursor` of the previous page of the same search.
            public var cursor: String?
            public init(
                q: String? = nil, kind: String? = nil, nearLat: Double? = nil, nearLon: Double? = nil,
                limit: Int? = nil, radius: Double? = nil, cursor: String? = nil
            ) {
                self.radius = radius
                self.q = q
                self.kind = kind
                self.nearLat = nearLat
                self.nearLon = nearLon
                self.limit = limit
                self.cursor = cursor
            }

            private enum CodingKeys: String, CodingKey { case q, kind, near, nearLat, nearLon, limit, radius, cursor }

            /// Reads the position as the API gives it, `near` (`lat,lon`), or as two numbers.
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                q = try container.decodeIfPresent(String.self, forKey: .q)
                kind = try container.decodeIfPresent(String.self, forKey: .kind)
                limit = try container.decodeIfPresent(Int.self, forKey: .limit)
                radius = try container.decodeIfPresent(Double.self, forKey: .radius)
                cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
                if let near = try container.decodeIfPresent(String.self, forKey: .near) {
                    let parts = near.split(separator: ",", omittingEmptySubsequences: false)
                        .map { Double($0.trimmingCharacters(in: .whitespaces)) }
                    guard parts.count == 2, let lat = parts[0], let lon = parts[1] else {
                        throw DecodingError.dataCorruptedError(
                            forKey: .near, in: container, debugDescription: "near must be lat,lon")
                    }
                    nearLat = lat
                    nearLon = lon
                } else {
                    nearLat = try container.decodeIfPresent(Double.self, forKey: .nearLat)
                    nearLon = try container.decodeIfPresent(Double.self, forKey: .nearLon)
                }
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeIfPresent(q, forKey: .q)
                try container.encodeIfPresent(kind, forKey: .kind)
                try container.encodeIfPresent(nearLat, forKey: .nearLat)
                try container.encodeIfPresent(nearLon, forKey: .nearLon)
                try container.encodeIfPresent(limit, forKey: .limit)
                try container.encodeIfPresent(radius, forKey: .radius)
                try container.encodeIfPresent(cursor, forKey: .cursor)
            }
        }
        /// Best match (or nearest) first.
        public typealias Reply = Page<Venue>
    }

    /// An id in a request.
    public struct ByID: Codable, Sendable, Equatable {
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// `get_venue`: one venue.
    public enum GetVenue: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "get_venue"
        public typealias Request = ByID
        public typealias Reply = Venue
    }

    /// A venue as an admin writes it.
    public struct VenueDraft: Codable, Sendable, Equatable {
        public var name: String
        public var kind: String
        public var building: String?
        public var level: Int
        public var lat: Double
        public var lon: Double
        public var description: String?
        public var history: String?
        public init(
            name: String, kind: String, building: String? = nil, level: Int, lat: Double, lon: Double,
            description: String? = nil, history: String? = nil
        ) {
            self.name = name
            self.kind = kind
            self.building = building
            self.level = level
            self.lat = lat
            self.lon = lon
            self.description = description
            self.history = history
        }
    }

    /// `create_venue` (admin).
    public enum CreateVenue: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "create_venue"
        public typealias Request = VenueDraft
        public typealias Reply = Venue
    }

    /// A venue id with its new contents: `id` beside the draft's members in one object.
    public typealias VenueUpdate = Identified<VenueDraft>

    /// `update_venue` (admin).
    public enum UpdateVenue: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "update_venue"
        public typealias Request = VenueUpdate
        public typealias Reply = Venue
    }

    /// `delete_venue` (admin).
    public enum DeleteVenue: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "delete_venue"
        public typealias Request = ByID
        public typealias Reply = Empty
    }
}

extension Routing {
    /// One instruction of a route.
    public struct Step: Codable, Sendable, Equatable {
        /// For a person, e.g. "Take the elevator to level 2".
        public var instruction: String
        /// `footway`, `corridor`, `stairs`, `elevator`, `ramp`, `door`.
        public var kind: String
        /// The floor at the end of the step.
        public var level: Int
        /// Metres.
        public var distance: Double
        public init(instruction: String, kind: String, level: Int, distance: Double) {
            self.instruction = instruction
            self.kind = kind
            self.level = level
            self.distance = distance
        }
    }

    /// A route as the phone shows it.
    public struct Route: Codable, Sendable, Equatable {
        public var profile: String
        /// Metres.
        public var distance: Double
        /// Seconds, at the profile's speed, slowed by current crowds.
        public var eta: Double
        /// Corner points of the way, with floors.
        public var path: [Point]
        public var steps: [Step]
        public init(profile: String, distance: Double, eta: Double, path: [Point], steps: [Step]) {
            self.profile = profile
            self.distance = distance
            self.eta = eta
            self.path = path
            self.steps = steps
        }
    }

    /// `plan_route`: from a venue or position to another, under `fastest`, `accessible` or
    /// `shortest`.
    public enum PlanRoute: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "plan_route"
        public struct Request: Codable, Sendable, Equatable {
            public var from: Place
            public var to: Place
            public var profile: String?
            public init(from: Place, to: Place, profile: String? = nil) {
                self.from = from
                self.to = to
                self.profile = profile
            }
        }
        public typealias Reply = Route
    }
}

extension Routing {
    /// One access point heard in a Wi-Fi scan.
    public struct ScanEntry: Codable, Sendable, Equatable {
        public var bssid: String
        /// dBm, e.g. -55.
        public var rssi: Double
        public init(bssid: String, rssi: Double) {
            self.bssid = bssid
            self.rssi = rssi
        }
    }

    /// A GPS fix from the phone.
    public struct GPSFix: Codable, Sendable, Equatable {
        public var lat: Double
        public var lon: Double
        /// Metres.
        public var accuracy: Double?
        public init(lat: Double, lon: Double, accuracy: Double? = nil) {
            self.lat = lat
            self.lon = lon
            self.accuracy = accuracy
        }
    }

    /// `locate`: a position from a Wi-Fi scan, or from GPS when no campus access point is heard.
    public enum Locate: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "locate"
        public struct Request: Codable, Sendable, Equatable {
            public var scan: [ScanEntry]
            public var gps: GPSFix?
            public init(scan: [ScanEntry], gps: GPSFix? = nil) {
                self.scan = scan
                self.gps = gps
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var lat: Double
            public var lon: Double
            public var level: Int
            /// Metres (radius of likely error).
            public var accuracy: Double
            /// `wifi` or `gps`.
            public var source: String
            /// Campus access points the estimate used.
            public var accessPointsUsed: Int
            public init(lat: Double, lon: Double, level: Int, accuracy: Double, source: String, accessPointsUsed: Int) {
                self.lat = lat
                self.lon = lon
                self.level = level
                self.accuracy = accuracy
                self.source = source
                self.accessPointsUsed = accessPointsUsed
            }
        }
    }

    /// A registered Wi-Fi access point.
    public struct AccessPoint: Codable, Sendable, Equatable {
        public var bssid: String
        public var name: String?
        public var lat: Double
        public var lon: Double
        public var level: Int
        /// People the area holds comfortably.
        public var capacity: Int
        public init(bssid: String, name: String?, lat: Double, lon: Double, level: Int, capacity: Int) {
            self.bssid = bssid
            self.name = name
            self.lat = lat
            self.lon = lon
            self.level = level
            self.capacity = capacity
        }
    }

    /// A list of access points.
    public struct AccessPoints: Codable, Sendable, Equatable {
        public var accessPoints: [AccessPoint]
        public init(accessPoints: [AccessPoint]) { self.accessPoints = accessPoints }
    }

    /// `list_access_points`.
    public enum ListAccessPoints: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "list_access_points"
        public typealias Request = Empty
        public typealias Reply = AccessPoints
    }

    /// `put_access_point` (admin): create or replace by BSSID.
    public enum PutAccessPoint: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "put_access_point"
        public typealias Request = AccessPoint
        public typealias Reply = AccessPoint
    }

    /// A BSSID in a request.
    public struct ByBSSID: Codable, Sendable, Equatable {
        public var bssid: String
        public init(bssid: String) { self.bssid = bssid }
    }

    /// `delete_access_point` (admin).
    public enum DeleteAccessPoint: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "delete_access_point"
        public typealias Request = ByBSSID
        public typealias Reply = Empty
    }
}

extension Routing {
    /// Devices one access point has connected now.
    public struct DeviceCount: Codable, Sendable, Equatable {
        public var bssid: String
        public var devices: Int
        public init(bssid: String, devices: Int) {
            self.bssid = bssid
            self.devices = devices
        }
    }

    /// `report_occupancy` (role `wifi_controller`): the counts a Wi-Fi controller reports every 30 s.
    public enum ReportOccupancy: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "report_occupancy"
        public struct Request: Codable, Sendable, Equatable {
            public var counts: [DeviceCount]
            public init(counts: [DeviceCount]) { self.counts = counts }
        }
        public struct Reply: Codable, Sendable, Equatable {
            /// Counts for registered access points that were taken.
            public var accepted: Int
            /// BSSIDs not in the registry (ignored).
            public var unknown: [String]
            public init(accepted: Int, unknown: [String]) {
                self.accepted = accepted
                self.unknown = unknown
            }
        }
    }

    /// Crowding around one access point.
    public struct AreaOccupancy: Codable, Sendable, Equatable {
        public var bssid: String
        public var name: String?
        public var level: Int
        public var devices: Int
        public var capacity: Int
        /// devices / capacity.
        public var density: Double
        /// What walking times there are multiplied by (≥ 1).
        public var crowdFactor: Double
        public init(
            bssid: String, name: String?, level: Int, devices: Int, capacity: Int, density: Double,
            crowdFactor: Double
        ) {
            self.bssid = bssid
            self.name = name
            self.level = level
            self.devices = devices
            self.capacity = capacity
            self.density = density
            self.crowdFactor = crowdFactor
        }
    }

    /// `get_occupancy`: people on campus now and the density per area.
    public enum GetOccupancy: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "get_occupancy"
        public typealias Request = Empty
        public struct Reply: Codable, Sendable, Equatable {
            public var peopleOnCampus: Int
            public var areas: [AreaOccupancy]
            public init(peopleOnCampus: Int, areas: [AreaOccupancy]) {
                self.peopleOnCampus = peopleOnCampus
                self.areas = areas
            }
        }
    }

    /// `import_map` (admin): a new campus from OSM XML; the graph is swapped atomically.
    public enum ImportMap: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "import_map"
        public struct Request: Codable, Sendable, Equatable {
            public var osm: String
            public init(osm: String) { self.osm = osm }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var version: Int64
            public var nodes: Int
            public var edges: Int
            public var venues: Int
            public var accessPoints: Int
            public init(version: Int64, nodes: Int, edges: Int, venues: Int, accessPoints: Int) {
                self.version = version
                self.nodes = nodes
                self.edges = edges
                self.venues = venues
                self.accessPoints = accessPoints
            }
        }
    }
}

extension Routing {
    /// Event `routing.goal_completed`, appended in the transaction that records the completion:
    /// a user reached a weekly goal and was issued a voucher. Notify tells the user (kind
    /// `goal_completed`, variables `goal` and `reward`). The voucher code travels in the event
    /// (inside PostgreSQL, never in a log line) so that a message can carry it.
    public struct GoalCompleted: Codable, Sendable, Equatable {
        public static let topic = "routing.goal_completed"
        public var userId: String
        public var goalId: String
        /// The goal's title.
        public var goal: String
        public var reward: String
        public var voucherCode: String
        /// `YYYY-MM-DD`, the Monday of the goal's week.
        public var weekStart: String
        public var metric: String
        public var target: Int64
        public init(
            userId: String, goalId: String, goal: String, reward: String, voucherCode: String, weekStart: String,
            metric: String, target: Int64
        ) {
            self.userId = userId
            self.goalId = goalId
            self.goal = goal
            self.reward = reward
            self.voucherCode = voucherCode
            self.weekStart = weekStart
            self.metric = metric
            self.target = target
        }
    }
}
