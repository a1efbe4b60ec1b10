/// One imported campus ready for queries: the graph, each profile's segment times, the access
/// points and the crowd area (nearest access point) of every node. Immutable; a re-import or an
/// access-point change builds a new one and swaps it in (``CampusState``).
public final class Campus: Sendable {
    /// The walkable graph.
    public let graph: CampusGraph
    /// The speeds and rules the times were computed with.
    public let cost: RouteCost
    /// Seconds per edge for `fastest` (also the ETA of `shortest`), without crowds.
    public let fastestSeconds: [Float]
    /// Seconds per edge for `accessible`; `.infinity` where the profile may not go.
    public let accessibleSeconds: [Float]
    /// The access points, in crowd-area order.
    public let accessPoints: [AccessPoint]
    /// Index in ``accessPoints`` by BSSID.
    public let accessPointIndex: [String: Int]
    /// Crowd area (index in ``accessPoints``) of each node, or -1 when no access point is near.
    public let nodeArea: [Int32]
    /// Version of the map this came from (0 for a map not stored in the database).
    public let mapVersion: Int64
    /// How far a crowd area reaches from its access point, metres.
    public let areaRadius: Double
    /// Least cost per floor changed of any level-changing edge, per profile (index: `fastest`,
    /// `accessible`, `shortest`): a lower bound the A* heuristic adds for floors still to go.
    let perFloorCost: [Float]
    /// ALT landmarks per profile (index: `fastest`, `accessible`, `shortest`), nil where none
    /// were computed.
    let landmarks: [Landmarks?]

    /// Landmarks computed for a campus unless asked otherwise.
    public static let defaultLandmarkCount = 16

    /// Prepares `graph` for queries; a node belongs to the nearest access point on its floor
    /// within `areaRadius` metres. Each profile in `landmarkProfiles` gets `landmarkCount` ALT
    /// landmarks (chosen under `fastest`), which sharpen the A* heuristic.
    public convenience init(
        graph: CampusGraph, accessPoints: [AccessPoint], cost: RouteCost = RouteCost(), areaRadius: Double = 60,
        mapVersion: Int64 = 0, landmarkCount: Int = Campus.defaultLandmarkCount,
        landmarkProfiles: [RouteProfile] = RouteProfile.allCases
    ) {
        self.init(
            graph: graph, accessPoints: accessPoints, cost: cost, areaRadius: areaRadius, mapVersion: mapVersion,
            landmarks: .compute(count: landmarkCount, profiles: landmarkProfiles))
    }

    /// How a new campus gets its landmarks.
    enum LandmarkSource {
        case compute(count: Int, profiles: [RouteProfile])
        case reuse([Landmarks?])
    }

    init(
        graph: CampusGraph, accessPoints: [AccessPoint], cost: RouteCost, areaRadius: Double, mapVersion: Int64,
        landmarks source: LandmarkSource
    ) {
        self.graph = graph
        self.cost = cost
        self.mapVersion = mapVersion
        self.areaRadius = areaRadius
        var fastest = [Float](repeating: 0, count: graph.edgeCount)
        var accessible = [Float](repeating: 0, count: graph.edgeCount)
        for edge in 0..<graph.edgeCount {
            let kind = SegmentKind(rawValue: graph.edgeKind[edge]) ?? .footway
            let flags = SegmentFlags(rawValue: graph.edgeFlags[edge])
            fastest[edge] = cost.seconds(
                length: graph.edgeLength[edge], kind: kind, flags: flags, incline: graph.edgeIncline[edge],
                profile: .fastest)
            accessible[edge] = cost.seconds(
                length: graph.edgeLength[edge], kind: kind, flags: flags, incline: graph.edgeIncline[edge],
                profile: .accessible)
        }
        fastestSeconds = fastest
        accessibleSeconds = accessible
        var perFloor: [Float] = [.infinity, .infinity, .infinity]
        for node in 0..<graph.nodeCount {
            for edge in Int(graph.edgeStart[node])..<Int(graph.edgeStart[node + 1]) {
                let floors = abs(graph.level[Int(graph.edgeTarget[edge])] - graph.level[node])
                guard floors > 0 else { continue }
                perFloor[0] = min(perFloor[0], fastest[edge] / Float(floors))
                perFloor[1] = min(perFloor[1], accessible[edge] / Float(floors))
                perFloor[2] = min(perFloor[2], graph.edgeLength[edge] / Float(floors))
            }
        }
        perFloorCost = perFloor.map { $0.isFinite ? $0 : 0 }
        switch source {
        case .reuse(let landmarks):
            self.landmarks = landmarks
        case .compute(let count, let profiles):
            let selected = profiles.isEmpty ? nil : Landmarks.spread(graph: graph, weights: fastest, count: count)
            let weights = [fastest, accessible, graph.edgeLength]
            self.landmarks = RouteProfile.allCases.enumerated().map { index, profile in
                guard profiles.contains(profile), let selected else { return nil }
                return index == 0 ? selected : Landmarks(graph: graph, weights: weights[index], nodes: selected.nodes)
            }
        }
        self.accessPoints = accessPoints
        var index: [String: Int] = [:]
        for (position, point) in accessPoints.enumerated() { index[point.bssid] = position }
        accessPointIndex = index
        let projected = accessPoints.map { graph.projection.project(latitude: $0.latitude, longitude: $0.longitude) }
        var area = [Int32](repeating: -1, count: graph.nodeCount)
        let limit = areaRadius * areaRadius
        for node in 0..<graph.nodeCount {
            var best = limit
            for (position, point) in accessPoints.enumerated() where Int32(point.level) == graph.level[node] {
                let dx = projected[position].x - graph.x[node]
                let dy = projected[position].y - graph.y[node]
                let distance = dx * dx + dy * dy
                if distance <= best {
                    best = distance
                    area[node] = Int32(position)
                }
            }
        }
        nodeArea = area
    }

    /// The least cost of changing one floor under `profile` (crowds only make it dearer).
    public func perFloor(_ profile: RouteProfile) -> Float {
        switch profile {
        case .fastest: perFloorCost[0]
        case .accessible: perFloorCost[1]
        case .shortest: perFloorCost[2]
        }
    }

    /// The ALT landmarks of `profile`, if any.
    func landmarks(_ profile: RouteProfile) -> Landmarks? {
        switch profile {
        case .fastest: landmarks[0]
        case .accessible: landmarks[1]
        case .shortest: landmarks[2]
        }
    }

    /// The same campus with `count` landmarks for `profiles` (computed now).
    public func withLandmarks(count: Int, profiles: [RouteProfile]) -> Campus {
        Campus(
            graph: graph, accessPoints: accessPoints, cost: cost, areaRadius: areaRadius, mapVersion: mapVersion,
            landmarks: .compute(count: count, profiles: profiles))
    }

    /// The same graph with another set of access points (the landmarks stay: they depend only on
    /// the graph and its weights).
    public func replacingAccessPoints(_ points: [AccessPoint]) -> Campus {
        Campus(
            graph: graph, accessPoints: points, cost: cost, areaRadius: areaRadius, mapVersion: mapVersion,
            landmarks: .reuse(landmarks))
    }
}
