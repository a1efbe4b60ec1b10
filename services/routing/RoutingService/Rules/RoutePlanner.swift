/// A* over a ``Campus`` under one profile and the current crowd factors. Pure CPU work, no I/O.
public struct RoutePlanner: Sendable {
    /// A path found: the edges in order and what it costs under the profile.
    public struct Path: Sendable, Equatable {
        /// Node where it starts.
        public let start: Int
        /// Edge indices, in walking order.
        public let edges: [Int]
        /// Total cost (seconds, or metres for `shortest`).
        public let cost: Float
        /// Nodes taken off the open set: how much work the search did.
        public let settled: Int
    }

    let pool = WorkspacePool()
    /// Landmarks a query uses: those that bound its source-to-target cost best.
    static let activeLandmarks = 6

    public init() {}

    /// The cheapest path from node `source` to node `target`, or nil when none exists.
    /// `crowd[i]` multiplies the times of the nodes in crowd area `i` (see ``Campus/nodeArea``).
    public func route(
        on campus: Campus, crowd: [Float], from source: Int, to target: Int, profile: RouteProfile
    ) -> Path? {
        let graph = campus.graph
        let workspace = pool.take(nodeCount: graph.nodeCount)
        defer { pool.give(workspace) }
        workspace.begin()
        let generation = workspace.generation
        let speed = campus.cost.topSpeed(profile)
        let perFloor = campus.perFloor(profile)
        let weights: [Float]
        switch profile {
        case .fastest: weights = campus.fastestSeconds
        case .accessible: weights = campus.accessibleSeconds
        case .shortest: weights = graph.edgeLength
        }
        let useCrowd = profile != .shortest && crowd.count == campus.accessPoints.count
        var settled = 0
        var found = false
        var heap = MinHeap(storage: workspace.heapStorage, capacity: workspace.heapCapacity)
        defer {
            workspace.heapStorage = heap.storage
            workspace.heapCapacity = heap.capacity
        }
        let targetX = graph.x[target]
        let targetY = graph.y[target]
        let targetLevel = graph.level[target]
        // Landmark bounds hold for base weights, so only while no crowd factor is below 1.
        let landmarks = !useCrowd || crowd.allSatisfy { $0 >= 1 } ? campus.landmarks(profile) : nil
        let active = landmarks?.active(from: source, to: target, limit: Self.activeLandmarks) ?? []
        let activeIndex = active.map(\.index)
        let activeToTarget = active.map(\.toTarget)
        let landmarkCount = landmarks?.nodes.count ?? 0
        let symmetric = landmarks?.symmetric ?? false
        let table = landmarks?.distance ?? []
        workspace.withBuffers { score, parent, seen, closed in
            graph.withBuffers { start, heads, xs, ys, levels in
                weights.withUnsafeBufferPointer { weight in
                    campus.nodeArea.withUnsafeBufferPointer { area in
                        table.withUnsafeBufferPointer { fromLandmark in
                            activeIndex.withUnsafeBufferPointer { activeIndex in
                                activeToTarget.withUnsafeBufferPointer { toTarget in
                                    func heuristic(_ node: Int) -> Float {
                                        let dx = xs[node] - targetX
                                        let dy = ys[node] - targetY
                                        let flat = Float((dx * dx + dy * dy).squareRoot()) / speed
                                        let floors = Float(abs(levels[node] - targetLevel)) * perFloor
                                        var bound = max(flat, floors)
                                        let row = node * landmarkCount
                                        for index in 0..<activeIndex.count {
                                            let toNode = fromLandmark[row + activeIndex[index]]
                                            if toNode.isFinite {
                                                var gap = toTarget[index] - toNode
                                                if symmetric { gap = abs(gap) }
                                                // Slack for float rounding keeps the bound below the true cost.
                                                let slack = max(toTarget[index], toNode) * 1e-5
                                                bound = max(bound, gap - slack)
                                            }
                                        }
                                        return bound
                                    }
                                    score[source] = 0
                                    seen[source] = generation
                                    parent[source] = -1
                                    heap.push(heuristic(source), Int32(source))
                                    while let entry = heap.pop() {
                                        let node = Int(entry.node)
                                        if closed[node] == generation { continue }
                                        closed[node] = generation
                                        settled += 1
                                        if node == target {
                                            found = true
                                            return
                                        }
                                        let base = score[node]
                                        let factor: Float = useCrowd && area[node] >= 0 ? crowd[Int(area[node])] : 1
                                        for edge in Int(start[node])..<Int(start[node + 1]) {
                                            let cost = weight[edge]
                                            if !cost.isFinite { continue }
                                            let head = Int(heads[edge])
                                            if closed[head] == generation { continue }
                                            let candidate = base + cost * factor
                                            if seen[head] != generation || candidate < score[head] {
                                                seen[head] = generation
                                                score[head] = candidate
                                                parent[head] = Int32(edge)
                                                heap.push(candidate + heuristic(head), Int32(head))
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard found else { return nil }
        var edges: [Int] = []
        var node = target
        while node != source {
            let edge = Int(workspace.parentEdge[node])
            edges.append(edge)
            node = tail(of: edge, in: graph)
        }
        return Path(start: source, edges: edges.reversed(), cost: workspace.score[target], settled: settled)
    }

    /// The node an edge leaves from (binary search in the row starts).
    func tail(of edge: Int, in graph: CampusGraph) -> Int {
        var low = 0
        var high = graph.nodeCount
        while low + 1 < high {
            let middle = (low + high) / 2
            if Int(graph.edgeStart[middle]) <= edge { low = middle } else { high = middle }
        }
        return low
    }
}
