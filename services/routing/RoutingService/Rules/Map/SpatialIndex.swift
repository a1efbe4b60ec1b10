/// Graph nodes bucketed by floor and square cell, to find the node nearest to a position.
public struct SpatialIndex: Sendable {
    /// Cell side in metres.
    public static let cellSize = 10.0
    private let cells: [Int64: [Int32]]
    private let x: [Double]
    private let y: [Double]

    init(x: [Double], y: [Double], level: [Int32]) {
        var cells: [Int64: [Int32]] = [:]
        for node in x.indices {
            cells[Self.key(level: level[node], cx: Self.cell(x[node]), cy: Self.cell(y[node])), default: []]
                .append(Int32(node))
        }
        self.cells = cells
        self.x = x
        self.y = y
    }

    private static func cell(_ metres: Double) -> Int32 { Int32((metres / cellSize).rounded(.down)) }

    private static func key(level: Int32, cx: Int32, cy: Int32) -> Int64 {
        (Int64(level & 0xFF) << 48) | (Int64(UInt32(bitPattern: cx) & 0xFF_FFFF) << 24)
            | Int64(UInt32(bitPattern: cy) & 0xFF_FFFF)
    }

    /// The node on `level` nearest to (`px`, `py`) within `maxDistance` metres, and its distance.
    public func nearest(x px: Double, y py: Double, level: Int32, maxDistance: Double) -> (node: Int, distance: Double)?
    {
        let cx = Self.cell(px)
        let cy = Self.cell(py)
        let rings = Int32((maxDistance / Self.cellSize).rounded(.up)) + 1
        var best: (node: Int, distance: Double)?
        for ring in 0...rings {
            if let found = best, found.distance < Double(ring - 1) * Self.cellSize { break }
            for dx in -ring...ring {
                for dy in -ring...ring where max(abs(dx), abs(dy)) == ring {
                    guard let nodes = cells[Self.key(level: level, cx: cx + dx, cy: cy + dy)] else { continue }
                    for node in nodes {
                        let ex = x[Int(node)] - px
                        let ey = y[Int(node)] - py
                        let distance = (ex * ex + ey * ey).squareRoot()
                        if distance <= maxDistance, distance < (best?.distance ?? .infinity) {
                            best = (Int(node), distance)
                        }
                    }
                }
            }
        }
        return best
    }
}
