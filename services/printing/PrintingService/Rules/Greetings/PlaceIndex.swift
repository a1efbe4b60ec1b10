import Foundation

/// The gazetteer's places in memory, bucketed in a grid of one-degree cells, for the nearest
/// place to a position: a search looks only at the cells that a circle around the position
/// touches, widening the circle until a place is inside it or it reaches the limit.
public struct PlaceIndex: Sendable {
    /// A populated place of the gazetteer.
    public struct Place: Sendable, Hashable {
        public let geonameId: Int
        public let name: String
        public let countryCode: String
        public let latitude: Double
        public let longitude: Double
        public let population: Int
        public init(
            geonameId: Int, name: String, countryCode: String, latitude: Double, longitude: Double, population: Int
        ) {
            self.geonameId = geonameId
            self.name = name
            self.countryCode = countryCode
            self.latitude = latitude
            self.longitude = longitude
            self.population = population
        }
    }

    /// The mean Earth radius (IUGG), metres.
    static let earthRadius = 6_371_008.8
    static let rows = 180
    static let columns = 360

    public let places: [Place]
    /// Indexes into `places` per cell, row-major from (-90°, -180°).
    private let cells: [[Int32]]

    /// Indexes `places`.
    public init(_ places: [Place]) {
        var cells = [[Int32]](repeating: [], count: Self.rows * Self.columns)
        for (index, place) in places.enumerated() {
            cells[Self.row(place.latitude) * Self.columns + Self.column(place.longitude)].append(Int32(index))
        }
        self.places = places
        self.cells = cells
    }

    /// The place nearest (`latitude`, `longitude`) no farther than `maxDistance` metres, with its
    /// distance in metres; nil when none is that near. Ties go to the lower GeoNames id.
    public func nearest(latitude: Double, longitude: Double, maxDistance: Double) -> (place: Place, meters: Double)? {
        var radius = min(25_000, maxDistance)
        while true {
            if let found = nearest(latitude: latitude, longitude: longitude, within: radius) { return found }
            if radius >= maxDistance { return nil }
            radius = min(radius * 2, maxDistance)
        }
    }

    /// The nearest place within `radius` metres, looking at every cell the circle's bounding box
    /// covers (so none within `radius` is missed).
    private func nearest(latitude: Double, longitude: Double, within radius: Double) -> (place: Place, meters: Double)?
    {
        let angular = radius / Self.earthRadius * 180 / .pi
        let south = max(-90, latitude - angular)
        let north = min(90, latitude + angular)
        let widest = max(abs(south), abs(north))
        // Longitude span at the widest latitude, with a margin; all of it near a pole.
        let cosine = cos(widest * .pi / 180)
        let span = cosine > 0.01 ? angular / cosine * 1.1 + 0.01 : 180
        var best: (place: Place, meters: Double)?
        for row in Self.row(south)...Self.row(north) {
            let columns: [Int]
            if span >= 180 {
                columns = Array(0..<Self.columns)
            } else {
                let first = Int((longitude - span + 180).rounded(.down))
                let last = Int((longitude + span + 180).rounded(.down))
                columns = (first...last).map { (($0 % Self.columns) + Self.columns) % Self.columns }
            }
            for column in Set(columns) {
                for index in cells[row * Self.columns + column] {
                    let place = places[Int(index)]
                    let meters = Self.distance(latitude, longitude, place.latitude, place.longitude)
                    guard meters <= radius else { continue }
                    if let current = best,
                        meters > current.meters
                            || (meters == current.meters && place.geonameId > current.place.geonameId)
                    {
                        continue
                    }
                    best = (place, meters)
                }
            }
        }
        return best
    }

    /// Great-circle distance in metres (haversine).
    public static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let φ1 = lat1 * .pi / 180
        let φ2 = lat2 * .pi / 180
        let dφ = φ2 - φ1
        let dλ = (lon2 - lon1) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(a)))
    }

    static func row(_ latitude: Double) -> Int { min(rows - 1, max(0, Int((latitude + 90).rounded(.down)))) }
    static func column(_ longitude: Double) -> Int {
        min(columns - 1, max(0, Int((longitude + 180).rounded(.down))))
    }
}
