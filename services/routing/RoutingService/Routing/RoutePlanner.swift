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
        let targetX = graph.x[target]
        let targetY = graph.y[target]
        func heuristic(_ node: Int) -> Float {
            let dx = graph.x[node] - targetX
            let dy = graph.y[node] - targetY
            return Float((dx * dx + dy * dy).squareRoot()) / speed
        }
        let weights: [Float]
        switch profile {
        case .fastest: weights = campus.fastestSeconds
        case .accessible: weights = campus.accessibleSeconds
        case .shortest: weights = graph.edgeLength
        }
        let useCrowd = profile != .shortest && crowd.count == campus.accessPoints.count
        workspace.score[source] = 0
        workspace.seen[source] = generation
        workspace.parentEdge[source] = -1
        workspace.push(heuristic(source), Int32(source))
        var settled = 0
        var found = false
        graph.edgeStart.withUnsafeBufferPointer { start in
            graph.edgeTarget.withUnsafeBufferPointer { heads in
                weights.withUnsafeBufferPointer { weight in
                    campus.nodeArea.withUnsafeBufferPointer { area in
                        while let (_, current) = workspace.pop() {
                            let node = Int(current)
                            if workspace.closed[node] == generation { continue }
                            workspace.closed[node] = generation
                            settled += 1
                            if node == target {
                                found = true
                                return
                            }
                            let base = workspace.score[node]
                            let factor: Float = useCrowd && area[node] >= 0 ? crowd[Int(area[node])] : 1
                            for edge in Int(start[node])..<Int(start[node + 1]) {
                                let cost = weight[edge]
                                if !cost.isFinite { continue }
                                let head = Int(heads[edge])
                                if workspace.closed[head] == generation { continue }
                                let score = base + cost * factor
                                if workspace.seen[head] != generation || score < workspace.score[head] {
                                    workspace.seen[head] = generation
                                    workspace.score[head] = score
                                    workspace.parentEdge[head] = Int32(edge)
                                    workspace.push(score + heuristic(head), Int32(head))
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
