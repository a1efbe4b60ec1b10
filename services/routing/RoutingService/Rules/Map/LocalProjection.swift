import Foundation

/// An equirectangular projection around a reference point: metres east (`x`) and north (`y`).
/// Accurate to well under a metre over a campus of a few kilometres.
public struct LocalProjection: Sendable, Hashable {
    /// Metres per degree of latitude.
    public static let metresPerDegree = 111_320.0
    /// The reference latitude, degrees.
    public let originLatitude: Double
    /// The reference longitude, degrees.
    public let originLongitude: Double
    private let metresPerDegreeLongitude: Double

    /// A projection around (`latitude`, `longitude`).
    public init(latitude: Double, longitude: Double) {
        originLatitude = latitude
        originLongitude = longitude
        metresPerDegreeLongitude = Self.metresPerDegree * cos(latitude * .pi / 180)
    }

    /// Metres east and north of the origin.
    public func project(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        ((longitude - originLongitude) * metresPerDegreeLongitude, (latitude - originLatitude) * Self.metresPerDegree)
    }

    /// The coordinates of a point `x` metres east and `y` north of the origin.
    public func unproject(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        (originLatitude + y / Self.metresPerDegree, originLongitude + x / metresPerDegreeLongitude)
    }
}
