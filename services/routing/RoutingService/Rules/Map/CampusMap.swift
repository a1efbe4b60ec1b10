import Foundation

/// A campus as imported from one OSM file: the walkable graph plus the venues and Wi-Fi access
/// points tagged in it (`navup:venue=*`, `navup:wifi_ap=yes`).
public struct CampusMap: Sendable {
    /// A point of interest from the map.
    public struct Venue: Sendable, Hashable {
        public var osmId: Int64
        public var name: String
        public var kind: String
        public var building: String?
        public var level: Int
        public var latitude: Double
        public var longitude: Double
        public var description: String
        public var history: String
    }

    /// The walkable graph.
    public let graph: CampusGraph
    /// Venues tagged in the file.
    public let venues: [Venue]
    /// Access points tagged in the file.
    public let accessPoints: [AccessPoint]

    /// Builds the campus from OSM XML.
    public static func load(osm data: Data, rules: MapRules = MapRules()) throws -> CampusMap {
        let document = try OSMDocument.parse(data)
        return CampusMap(
            graph: try GraphBuilder(rules: rules).build(document), venues: venues(in: document),
            accessPoints: accessPoints(in: document))
    }

    static func venues(in document: OSMDocument) -> [Venue] {
        document.nodes.compactMap { node in
            guard let kind = node.tags["navup:venue"], let name = node.tags["name"] else { return nil }
            return Venue(
                osmId: node.id, name: name, kind: kind, building: node.tags["building"],
                level: GraphBuilder.levels(node.tags["level"]).first.map(Int.init) ?? 0, latitude: node.latitude,
                longitude: node.longitude, description: node.tags["description"] ?? "",
                history: node.tags["history"] ?? "")
        }
    }

    static func accessPoints(in document: OSMDocument) -> [AccessPoint] {
        document.nodes.compactMap { node in
            guard node.tags["navup:wifi_ap"] == "yes", let bssid = node.tags["wifi:bssid"] else { return nil }
            return AccessPoint(
                bssid: bssid.lowercased(), name: node.tags["name"], latitude: node.latitude, longitude: node.longitude,
                level: GraphBuilder.levels(node.tags["level"]).first.map(Int.init) ?? 0,
                capacity: node.tags["capacity"].flatMap(Int.init) ?? 150)
        }
    }
}

/// A Wi-Fi access point of the campus network.
public struct AccessPoint: Sendable, Hashable, Codable {
    /// MAC address, lower case `aa:bb:cc:dd:ee:ff`.
    public var bssid: String
    public var name: String?
    public var latitude: Double
    public var longitude: Double
    public var level: Int
    /// People the area around it holds comfortably; crowd density is devices / capacity.
    public var capacity: Int

    public init(bssid: String, name: String?, latitude: Double, longitude: Double, level: Int, capacity: Int) {
        self.bssid = bssid
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.level = level
        self.capacity = capacity
    }
}

/// Tunables of the import.
public struct MapRules: Sendable {
    /// Height of one floor in metres (the climb of stairs and elevators).
    public var floorHeight: Double = 3.5
    /// Doors narrower than this (metres) are avoided by the accessible profile.
    public var minimumDoorWidth: Double = 0.9
    public init() {}
}
