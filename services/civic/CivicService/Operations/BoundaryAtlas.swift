import CivicContract
import Contract
import Foundation
import ServiceKit

/// The outlines of the jurisdictions and districts (`Operations/Boundaries/boundaries.geojson`, loaded once)
/// and the two operations on them: `boundaries`, so that an app resolves its own saved places
/// offline, and `lookup`, which answers the jurisdictions containing a point. A lookup reads
/// only this memory: it writes nothing, logs nothing of the point, and calls nothing.
public struct BoundaryAtlas: Sendable {
    public let features: [Civic.BoundaryFeature]
    /// `boundaries`' reply, encoded once (it changes only with the file).
    public let encoded: [UInt8]

    public init(features: [Civic.BoundaryFeature]) throws {
        self.features = features
        encoded = Array(try Wire.makeEncoder().encode(Civic.Boundaries.Reply(features: features)))
    }

    /// The outlines shipped with the service.
    public static func shipped() throws -> BoundaryAtlas {
        guard let url = Bundle.module.url(forResource: "boundaries", withExtension: "geojson")
        else { throw ServiceError(.internal, "the civic service's boundaries.geojson is missing from its resources") }
        let collection = try JSONDecoder().decode(Civic.Boundaries.Reply.self, from: Data(contentsOf: url))
        return try BoundaryAtlas(features: collection.features)
    }

    /// `boundaries`.
    public func boundaries(_ request: Empty, _ context: OperationContext) async throws -> Civic.Boundaries.Reply {
        .init(features: features)
    }

    /// `lookup`: 400 naming `lat` or `lon` outside the globe; the matches, most local first. Its
    /// payload is read by ``LookupBody`` (strictly, refused without a word of it).
    public func lookup(_ request: Civic.Lookup.Request, _ context: OperationContext) async throws
        -> Civic.Lookup.Reply
    {
        try LookupBody.check(lat: request.lat, lon: request.lon)
        return .init(jurisdictions: matches(lat: request.lat, lon: request.lon))
    }

    /// Each jurisdiction whose outline holds the point once, with the district outline that holds it.
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
                    matches.append(.init(jurisdiction: jurisdiction, district: district.properties.district))
                }
            }
        }
        return matches.sorted { ($0.jurisdiction.level, $0.district ?? "") < ($1.jurisdiction.level, $1.district ?? "") }
    }
}
