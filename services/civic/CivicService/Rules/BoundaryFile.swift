import CivicContract
import Contract
import Foundation

/// An operator's outlines (`CIVIC_BOUNDARIES_FILE`): a GeoJSON `FeatureCollection` in the format
/// of the bundled `boundaries.geojson`, read strictly so that a bad file stops civic at start
/// with the rule it breaks and where, rather than answering lookups wrongly.
///
/// Each feature is `{"type": "Feature", "id", "properties": {"jurisdictionId", "name", "level",
/// "district", "chamber"}, "geometry"}` with a `MultiPolygon` (or a `Polygon`, taken as a one-polygon
/// `MultiPolygon`) of closed rings of at least 4 `[longitude, latitude]` positions (a third
/// number, an altitude, is dropped). The jurisdiction must be one civic knows, with its level.
/// A district's `chamber` may be left out only where it can be told
/// (``chamber(_:at:id:jurisdictionId:level:district:)``).
/// ``merged(bundled:file:)`` lays the file over the bundled outlines by feature `id`.
public enum BoundaryFile {
    /// A rule the file breaks: where (`features[3].geometry.coordinates[0][1]`, empty for the
    /// whole file) and what was expected there. Never quotes the file's values.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let rule: String
        public init(_ path: String, _ rule: String) {
            self.path = path
            self.rule = rule
        }
        public var description: String { path.isEmpty ? rule : "\(path): \(rule)" }
    }

    /// The features of `data`, checked against `known` (jurisdiction id → its level).
    public static func features(_ data: Data, known: [String: Civic.Level]) throws(Refusal) -> [Civic.BoundaryFeature] {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw Refusal("", "JSON text (a GeoJSON FeatureCollection)")
        }
        guard case .object(let collection) = root, collection["type"] == .string("FeatureCollection"),
            case .array(let items)? = collection["features"]
        else {
            throw Refusal(
                "", #"a GeoJSON FeatureCollection (an object with "type": "FeatureCollection" and a "features" array)"#)
        }
        var features: [Civic.BoundaryFeature] = []
        var ids: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let feature = try Self.feature(item, at: "features[\(index)]", known: known)
            if let earlier = ids[feature.id] {
                throw Refusal("features[\(index)].id", "an id no other feature has (features[\(earlier)] has it)")
            }
            ids[feature.id] = index
            features.append(feature)
        }
        return features
    }

    /// `file` laid over `bundled`: a feature of the file replaces the bundled one with the same
    /// `id` in its place, the others are added after them in the file's order. Every district
    /// outline must then have its jurisdiction's whole outline (district null) beside it, or
    /// lookup could never answer it.
    public static func merged(bundled: [Civic.BoundaryFeature], file: [Civic.BoundaryFeature]) throws(Refusal)
        -> [Civic.BoundaryFeature]
    {
        let byId = Dictionary(file.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let bundledIds = Set(bundled.map(\.id))
        let all = bundled.map { byId[$0.id] ?? $0 } + file.filter { !bundledIds.contains($0.id) }
        let whole = Set(all.filter { $0.properties.district == nil }.map(\.properties.jurisdictionId))
        for (index, feature) in file.enumerated()
        where feature.properties.district != nil && !whole.contains(feature.properties.jurisdictionId) {
            throw Refusal(
                "features[\(index)].properties.jurisdictionId",
                "a jurisdiction with a whole outline (a feature with district null, in the file or bundled)")
        }
        return all
    }

    static func feature(_ value: JSONValue, at path: String, known: [String: Civic.Level]) throws(Refusal)
        -> Civic.BoundaryFeature
    {
        guard case .object(let members) = value, members["type"] == .string("Feature") else {
            throw Refusal(path, #"an object with "type": "Feature""#)
        }
        guard case .string(let id)? = members["id"], !id.isEmpty else {
            throw Refusal("\(path).id", "a non-empty string")
        }
        guard case .object(let properties)? = members["properties"] else {
            throw Refusal("\(path).properties", "an object")
        }
        guard case .string(let jurisdiction)? = properties["jurisdictionId"], let level = known[jurisdiction] else {
            throw Refusal(
                "\(path).properties.jurisdictionId",
                "a jurisdiction civic knows (one of the bundled outlines' or of CIVIC_JURISDICTIONS)")
        }
        guard case .string(let name)? = properties["name"], !name.isEmpty else {
            throw Refusal("\(path).properties.name", "a non-empty string")
        }
        guard properties["level"] == .string(level.rawValue) else {
            throw Refusal("\(path).properties.level", "\(level.rawValue), the jurisdiction's level")
        }
        let district: String?
        switch properties["district"] {
        case nil, .null?: district = nil
        case .string(let text)? where !text.isEmpty: district = text
        default: throw Refusal("\(path).properties.district", "a non-empty string, or null for the whole jurisdiction")
        }
        let chamber = try Self.chamber(
            properties["chamber"], at: path, id: id, jurisdictionId: jurisdiction, level: level, district: district)
        guard case .object(let geometry)? = members["geometry"] else {
            throw Refusal("\(path).geometry", "an object")
        }
        let coordinates = geometry["coordinates"] ?? .null
        let polygons: [[[[Double]]]]
        switch geometry["type"] {
        case .string("MultiPolygon")?:
            guard case .array(let items) = coordinates, !items.isEmpty else {
                throw Refusal("\(path).geometry.coordinates", "a non-empty array of polygons")
            }
            var list: [[[[Double]]]] = []
            for (index, item) in items.enumerated() {
                list.append(try polygon(item, at: "\(path).geometry.coordinates[\(index)]"))
            }
            polygons = list
        case .string("Polygon")?:
            polygons = [try polygon(coordinates, at: "\(path).geometry.coordinates")]
        default:
            throw Refusal("\(path).geometry.type", "MultiPolygon or Polygon")
        }
        return Civic.BoundaryFeature(
            id: id,
            properties: .init(
                jurisdictionId: jurisdiction, name: name, level: level, district: district, chamber: chamber),
            geometry: .init(coordinates: polygons))
    }

    /// A polygon: an outer ring, then its holes.
    static func polygon(_ value: JSONValue, at path: String) throws(Refusal) -> [[[Double]]] {
        guard case .array(let items) = value, !items.isEmpty else {
            throw Refusal(path, "a polygon: a non-empty array of rings")
        }
        var rings: [[[Double]]] = []
        for (index, item) in items.enumerated() {
            rings.append(try ring(item, at: "\(path)[\(index)]"))
        }
        return rings
    }

    /// A ring: at least 4 positions on the globe, the last equal to the first.
    static func ring(_ value: JSONValue, at path: String) throws(Refusal) -> [[Double]] {
        guard case .array(let items) = value else {
            throw Refusal(path, "a ring: an array of [longitude, latitude] positions")
        }
        guard items.count >= 4 else { throw Refusal(path, "a ring of at least 4 positions") }
        var positions: [[Double]] = []
        positions.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .array(let numbers) = item, numbers.count == 2 || numbers.count == 3,
                case .number(let lon) = numbers[0], case .number(let lat) = numbers[1],
                (-180.0...180.0).contains(lon), (-90.0...90.0).contains(lat)
            else {
                throw Refusal(
                    "\(path)[\(index)]",
                    "[longitude, latitude] with longitude from -180 to 180 and latitude from -90 to 90")
            }
            positions.append([lon, lat])
        }
        guard positions.first == positions.last else {
            throw Refusal(path, "a closed ring (its last position equal to its first)")
        }
        return positions
    }
}
