import Contract

extension Civic {
    /// A GeoJSON feature: one jurisdiction's (or district's) outline, simplified.
    public struct BoundaryFeature: Codable, Sendable, Equatable {
        public var type = "Feature"
        public var id: String
        public var properties: BoundaryProperties
        public var geometry: MultiPolygon
        public init(id: String, properties: BoundaryProperties, geometry: MultiPolygon) {
            self.id = id
            self.properties = properties
            self.geometry = geometry
        }
    }

    public struct BoundaryProperties: Codable, Sendable, Equatable {
        public var jurisdictionId: String
        public var name: String
        public var level: Level
        /// The district's name, for a district's outline; nil for the whole jurisdiction.
        public var district: String?
        /// The chamber the district elects to, for a district's outline; nil for the whole jurisdiction.
        public var chamber: Chamber?
        /// True for a made-up outline shipped as a sample (the bundled districts), so that an app
        /// can say so; absent for real outlines.
        public var sample: Bool?
        public init(
            jurisdictionId: String, name: String, level: Level, district: String?, chamber: Chamber? = nil,
            sample: Bool? = nil
        ) {
            self.jurisdictionId = jurisdictionId
            self.name = name
            self.level = level
            self.district = district
            self.chamber = chamber
            self.sample = sample
        }
    }

    /// GeoJSON `MultiPolygon`: polygons of rings of `[longitude, latitude]`, each ring closed.
    public struct MultiPolygon: Codable, Sendable, Equatable {
        public var type = "MultiPolygon"
        public var coordinates: [[[[Double]]]]
        public init(coordinates: [[[[Double]]]]) { self.coordinates = coordinates }
    }

    /// `boundaries`: every outline, as a GeoJSON `FeatureCollection`.
    public enum Boundaries: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "boundaries"
        public typealias Request = Empty
        public struct Reply: Codable, Sendable, Equatable {
            public var type = "FeatureCollection"
            public var features: [BoundaryFeature]
            public init(features: [BoundaryFeature]) { self.features = features }
        }
    }

    /// One jurisdiction containing a point, with the district there when it has districts, and
    /// the chamber that district elects to (a state's Assembly and Senate districts are two matches).
    public struct PlaceMatch: Codable, Sendable, Equatable {
        public var jurisdiction: Jurisdiction
        public var district: String?
        /// The district's chamber; nil for a jurisdiction matched without a district.
        public var chamber: Chamber?
        public init(jurisdiction: Jurisdiction, district: String?, chamber: Chamber? = nil) {
            self.jurisdiction = jurisdiction
            self.district = district
            self.chamber = chamber
        }
    }

    /// `lookup`: the jurisdictions containing a point, most local first (then by chamber, upper
    /// before lower, then by district). Nothing of the request
    /// is kept, logged or sent on.
    public enum Lookup: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "lookup"
        public struct Request: Codable, Sendable, Equatable {
            public var lat: Double
            public var lon: Double
            public init(lat: Double, lon: Double) {
                self.lat = lat
                self.lon = lon
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var jurisdictions: [PlaceMatch]
            public init(jurisdictions: [PlaceMatch]) { self.jurisdictions = jurisdictions }
        }
    }
}
