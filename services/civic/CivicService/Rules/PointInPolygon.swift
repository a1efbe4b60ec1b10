/// Whether a point lies in a GeoJSON polygon (an outer ring and holes, `[longitude, latitude]`),
/// by the even-odd rule on a ray towards +longitude. A point on an edge or a vertex counts as
/// inside, so that two neighbours sharing an edge both claim it rather than neither. Plain
/// planar geometry on degrees: right for outlines of this size away from the poles and the
/// antimeridian.
public enum PointInPolygon {
    /// Within this many degrees of an edge is on it (about a centimetre).
    static let onEdge = 1e-7

    public static func contains(_ polygon: [[[Double]]], lon: Double, lat: Double) -> Bool {
        guard let outer = polygon.first, ring(outer, lon: lon, lat: lat) != .outside else { return false }
        for hole in polygon.dropFirst() where ring(hole, lon: lon, lat: lat) == .inside { return false }
        return true
    }

    public static func contains(multiPolygon: [[[[Double]]]], lon: Double, lat: Double) -> Bool {
        multiPolygon.contains { contains($0, lon: lon, lat: lat) }
    }

    enum Place { case inside, edge, outside }

    static func ring(_ points: [[Double]], lon x: Double, lat y: Double) -> Place {
        guard points.count >= 4 else { return .outside }
        var inside = false
        for index in 0..<(points.count - 1) {
            let (x1, y1, x2, y2) = (points[index][0], points[index][1], points[index + 1][0], points[index + 1][1])
            if onSegment(x, y, x1, y1, x2, y2) { return .edge }
            if (y1 > y) != (y2 > y), x < x1 + (y - y1) * (x2 - x1) / (y2 - y1) { inside.toggle() }
        }
        return inside ? .inside : .outside
    }

    static func onSegment(_ x: Double, _ y: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Bool {
        guard x >= min(x1, x2) - onEdge, x <= max(x1, x2) + onEdge, y >= min(y1, y2) - onEdge,
            y <= max(y1, y2) + onEdge
        else { return false }
        let cross = (x - x1) * (y2 - y1) - (y - y1) * (x2 - x1)
        let length = ((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1)).squareRoot()
        return length == 0 ? true : abs(cross) / length <= onEdge
    }
}
