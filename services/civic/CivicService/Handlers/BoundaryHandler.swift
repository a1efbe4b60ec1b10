import CivicContract
import Contract
import Foundation
import ServiceKit

/// The outlines of the jurisdictions and districts (`Resources/boundaries.geojson`,
/// with an operator's `CIVIC_BOUNDARIES_FILE` laid over it, loaded once at start) and the two
/// operations on them: `boundaries`, so that an app resolves its own saved places
/// offline, and `lookup`, which answers the jurisdictions containing a point. A lookup reads
/// only this memory: it writes nothing, logs nothing of the point, and calls nothing.
public struct BoundaryHandler: Sendable {
    public let features: [Civic.BoundaryFeature]
    /// `boundaries`' reply, encoded once (it changes only with the file).
    public let encoded: [UInt8]

    public init(features: [Civic.BoundaryFeature]) throws {
        self.features = features
        encoded = Array(try Wire.makeEncoder().encode(Civic.Boundaries.Reply(features: features)))
    }

    /// The outlines shipped with the service.
    public static func shipped() throws -> BoundaryHandler {
        guard let url = Bundle.module.url(forResource: "boundaries", withExtension: "geojson")
        else { throw ServiceError(.internal, "the civic service's boundaries.geojson is missing from its resources") }
        let collection = try JSONDecoder().decode(Civic.Boundaries.Reply.self, from: Data(contentsOf: url))
        return try BoundaryHandler(features: collection.features)
    }

    /// `CIVIC_BOUNDARIES_FILE`: an operator's outlines (real district outlines, say), read at start.
    public static let fileSetting = Setting(
        "CIVIC_BOUNDARIES_FILE", default: nil,
        "a GeoJSON FeatureCollection of outlines in the format of the bundled boundaries.geojson, read at start: "
            + "a feature replaces the bundled one with the same id, the others are added; a bad file stops civic")

    /// The outlines civic serves under `environment`: the bundled ones, with the features of
    /// `CIVIC_BOUNDARIES_FILE` laid over them when it is set (``BoundaryFile``). A file that
    /// cannot be read or breaks a rule is a bad setting naming the file and the rule, with the
    /// feature's index (`features[3]...`), so the process stops at start (exit 78).
    public static func configured(_ environment: ProcessEnvironment) throws -> BoundaryHandler {
        let bundled = try shipped()
        guard let path = environment.string(fileSetting) else { return bundled }
        // Civic knows the jurisdictions of its bundled outlines and those it is set to import.
        var known: [String: Civic.Level] = [:]
        for feature in bundled.features { known[feature.properties.jurisdictionId] = feature.properties.level }
        for id in try FeedSettings(environment: environment).jurisdictions where known[id] == nil {
            known[id] = JurisdictionLevel.of(id: id)
        }
        func refused(_ rule: String) -> ProcessEnvironment.InvalidSetting {
            .init(name: fileSetting.name, value: path, expected: rule)
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw refused("a readable file")
        }
        let features: [Civic.BoundaryFeature]
        do throws(BoundaryFile.Refusal) {
            features = try BoundaryFile.merged(
                bundled: bundled.features, file: try BoundaryFile.features(data, known: known))
        } catch {
            throw refused(error.description)
        }
        return try BoundaryHandler(features: features)
    }

    /// `boundaries`.
    public func boundaries(_ request: Empty, _ context: OperationContext) async throws -> Civic.Boundaries.Reply {
        .init(features: features)
    }

    /// `boundaries` as its reply's JSON, encoded once at start.
    public func boundariesJSON(_ request: Empty, _ context: OperationContext) async throws -> [UInt8] {
        encoded
    }

    /// `lookup`: 400 naming `lat` or `lon` outside the globe; the matches, most local first. Its
    /// payload is read by ``LookupBody`` (strictly, refused without a word of it).
    public func lookup(_ request: Civic.Lookup.Request, _ context: OperationContext) async throws
        -> Civic.Lookup.Reply
    {
        try LookupBody.check(lat: request.lat, lon: request.lon)
        return .init(jurisdictions: matches(lat: request.lat, lon: request.lon))
    }

    /// Each jurisdiction whose outline holds the point once, or once per district outline that
    /// holds it (a state's Assembly and Senate districts are two matches, each with its chamber);
    /// by level, then chamber (upper, lower, legislature), district and jurisdiction id, so the
    /// order never depends on the file's.
    public func matches(lat: Double, lon: Double) -> [Civic.PlaceMatch] {
        let holding = features.filter {
            PointInPolygon.contains(multiPolygon: $0.geometry.coordinates, lon: lon, lat: lat)
        }
        var matches: [Civic.PlaceMatch] = []
        for whole in holding where whole.properties.district == nil {
            let districts = holding.filter {
                $0.properties.jurisdictionId == whole.properties.jurisdictionId && $0.properties.district != nil
            }
            let jurisdiction = Civic.Jurisdiction(
                id: whole.properties.jurisdictionId, name: whole.properties.name, level: whole.properties.level)
            if districts.isEmpty {
                matches.append(.init(jurisdiction: jurisdiction, district: nil))
            } else {
                for district in districts {
                    matches.append(
                        .init(
                            jurisdiction: jurisdiction, district: district.properties.district,
                            chamber: district.properties.chamber))
                }
            }
        }
        return matches.sorted { Self.order($0) < Self.order($1) }
    }

    /// A match's place in ``matches(lat:lon:)``: a match without a chamber before one with.
    static func order(_ match: Civic.PlaceMatch) -> (Civic.Level, Int, String, String) {
        let chamber = match.chamber.map { Civic.Chamber.allCases.firstIndex(of: $0)! } ?? -1
        return (match.jurisdiction.level, chamber, match.district ?? "", match.jurisdiction.id)
    }
}
