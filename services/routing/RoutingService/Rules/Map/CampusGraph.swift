/// The walkable campus as an immutable directed graph in flat arrays (compressed sparse rows),
/// built once per import and shared by every route query; a re-import builds a new one.
public final class CampusGraph: Sendable {
    /// Name and building of the OSM way a segment came from, for instructions.
    public struct WayInfo: Sendable, Hashable {
        public let name: String?
        public let building: String?
        public init(name: String?, building: String?) {
            self.name = name
            self.building = building
        }
    }

    /// The projection used for `x`/`y`.
    public let projection: LocalProjection
    /// OSM id of each node.
    public let osmId: [Int64]
    /// Metres east of the projection origin, per node.
    public let x: [Double]
    /// Metres north of the projection origin, per node.
    public let y: [Double]
    /// Floor of each node (0 = ground).
    public let level: [Int32]
    /// Out-edges of node `n` are `edgeStart[n] ..< edgeStart[n + 1]`.
    public let edgeStart: [Int32]
    /// Head node of each edge.
    public let edgeTarget: [Int32]
    /// Length of each edge in metres, including the climb of stairs and elevators.
    public let edgeLength: [Float]
    /// ``SegmentKind`` raw value of each edge.
    public let edgeKind: [UInt8]
    /// ``SegmentFlags`` raw value of each edge.
    public let edgeFlags: [UInt8]
    /// Absolute incline of each edge in percent (0 when untagged).
    public let edgeIncline: [Float]
    /// Index into ``ways`` of each edge.
    public let edgeWay: [Int32]
    /// The ways segments came from.
    public let ways: [WayInfo]
    /// Nodes by floor and 10 m cell, for snapping a position to the graph.
    public let spatial: SpatialIndex

    /// Number of nodes.
    public var nodeCount: Int { x.count }
    /// Number of directed edges.
    public var edgeCount: Int { edgeTarget.count }

    /// Assembles a graph; `edges` need not be sorted.
    public init(
        projection: LocalProjection, osmId: [Int64], x: [Double], y: [Double], level: [Int32],
        edges: [GraphEdge], ways: [WayInfo]
    ) {
        let count = x.count
        var start = [Int32](repeating: 0, count: count + 1)
        for edge in edges { start[Int(edge.from) + 1] += 1 }
        for index in 0..<count { start[index + 1] += start[index] }
        var fill = Array(start.dropLast())
        var target = [Int32](repeating: 0, count: edges.count)
        var length = [Float](repeating: 0, count: edges.count)
        var kind = [UInt8](repeating: 0, count: edges.count)
        var flags = [UInt8](repeating: 0, count: edges.count)
        var incline = [Float](repeating: 0, count: edges.count)
        var way = [Int32](repeating: 0, count: edges.count)
        for edge in edges {
            let slot = Int(fill[Int(edge.from)])
            fill[Int(edge.from)] += 1
            target[slot] = edge.to
            length[slot] = edge.length
            kind[slot] = edge.kind.rawValue
            flags[slot] = edge.flags.rawValue
            incline[slot] = edge.incline
            way[slot] = edge.way
        }
        self.projection = projection
        self.osmId = osmId
        self.x = x
        self.y = y
        self.level = level
        self.edgeStart = start
        self.edgeTarget = target
        self.edgeLength = length
        self.edgeKind = kind
        self.edgeFlags = flags
        self.edgeIncline = incline
        self.edgeWay = way
        self.ways = ways
        self.spatial = SpatialIndex(x: x, y: y, level: level)
    }

    /// Direct access to the arrays the search reads: row starts, heads, x, y, level.
    func withBuffers<T>(
        _ body: (
            UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Double>,
            UnsafeBufferPointer<Double>, UnsafeBufferPointer<Int32>
        ) throws -> T
    ) rethrows -> T {
        try edgeStart.withUnsafeBufferPointer { start in
            try edgeTarget.withUnsafeBufferPointer { heads in
                try x.withUnsafeBufferPointer { xs in
                    try y.withUnsafeBufferPointer { ys in
                        try level.withUnsafeBufferPointer { levels in try body(start, heads, xs, ys, levels) }
                    }
                }
            }
        }
    }

    /// The levels present, ascending.
    public var levels: [Int32] { Array(Set(level)).sorted() }

    /// Latitude and longitude of node `node`.
    public func coordinate(of node: Int) -> (latitude: Double, longitude: Double) {
        projection.unproject(x: x[node], y: y[node])
    }
}

/// One directed segment while a graph is being built.
public struct GraphEdge: Sendable, Hashable {
    public var from: Int32
    public var to: Int32
    public var length: Float
    public var kind: SegmentKind
    public var flags: SegmentFlags
    public var incline: Float
    public var way: Int32

    public init(
        from: Int32, to: Int32, length: Float, kind: SegmentKind, flags: SegmentFlags = [], incline: Float = 0,
        way: Int32 = 0
    ) {
        self.from = from
        self.to = to
        self.length = length
        self.kind = kind
        self.flags = flags
        self.incline = incline
        self.way = way
    }
}
