import Foundation

extension Campus {
    /// A square grid of `side`² nodes 5 m apart with diagonals, lengths jittered by up to 30 %
    /// drawn from `random` (a seeded generator builds the same grid every run).
    public static func syntheticGrid(side: Int, random: inout some RandomNumberGenerator, landmarkCount: Int)
        -> Campus
    {
        let count = side * side
        var x = [Double](repeating: 0, count: count)
        var y = [Double](repeating: 0, count: count)
        for row in 0..<side {
            for column in 0..<side {
                x[row * side + column] = Double(column) * 5
                y[row * side + column] = Double(row) * 5
            }
        }
        var edges: [GraphEdge] = []
        edges.reserveCapacity(count * 8)
        for row in 0..<side {
            for column in 0..<side {
                let node = Int32(row * side + column)
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let r = row + dr
                    let c = column + dc
                    guard r < side, c >= 0, c < side else { continue }
                    let other = Int32(r * side + c)
                    let base: Float = dr != 0 && dc != 0 ? 7.071 : 5
                    let length = base * (1 + Float(random.next() % 300) / 1000)
                    edges.append(GraphEdge(from: node, to: other, length: length, kind: .footway))
                    edges.append(GraphEdge(from: other, to: node, length: length, kind: .footway))
                }
            }
        }
        let graph = CampusGraph(
            projection: LocalProjection(latitude: 0, longitude: 0), osmId: (0..<count).map(Int64.init), x: x, y: y,
            level: [Int32](repeating: 0, count: count), edges: edges, ways: [.init(name: nil, building: nil)])
        return Campus(graph: graph, accessPoints: [], landmarkCount: landmarkCount)
    }
}
