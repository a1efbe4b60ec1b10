import Foundation
import RoutingService

/// The bundled sample campus, imported once for all tests.
enum SampleCampus {
    static let map: CampusMap = {
        do {
            return try CampusMap.load(osm: try RoutingService.sampleCampus())
        } catch {
            fatalError("the sample campus does not import: \(error)")
        }
    }()

    static let campus = Campus(graph: map.graph, accessPoints: map.accessPoints)

    /// A venue of the sample by name.
    static func venue(_ name: String) -> CampusMap.Venue {
        guard let venue = map.venues.first(where: { $0.name == name }) else { fatalError("no venue \(name)") }
        return venue
    }

    /// The graph node nearest to a venue, on its floor.
    static func node(_ name: String) -> Int {
        let venue = venue(name)
        let (x, y) = campus.graph.projection.project(latitude: venue.latitude, longitude: venue.longitude)
        return campus.graph.spatial.nearest(x: x, y: y, level: Int32(venue.level), maxDistance: 50)!.node
    }
}
