/// ALT lower bounds ("A*, landmarks, triangle inequality"): the cost from a few landmark nodes to
/// every node under one profile's base weights. For any landmark L, node v and target t,
/// cost(v → t) ≥ cost(L → t) − cost(L → v); crowds only make edges dearer, so the bound holds
/// under any crowd factors ≥ 1. It needs no symmetric weights, only distances from L; where the
/// weights are symmetric, cost(L → v) − cost(L → t) is a second bound.
public struct Landmarks: Sendable {
    /// The landmark nodes.
    public let nodes: [Int32]
    /// `distance[node * nodes.count + i]`: least cost from landmark `i` to `node` (infinity when
    /// `node` cannot be reached from it). Node-major, so one node's bounds share a cache line.
    let distance: [Float]
    /// Whether every edge has a reverse edge of the same cost; then cost(L → v) = cost(v → L) and
    /// cost(L → v) − cost(L → t) bounds cost(v → t) too.
    let symmetric: Bool

    /// Landmarks `nodes` with their costs under `weights` (edge costs; infinite edges are closed).
    init(graph: CampusGraph, weights: [Float], nodes: [Int32]) {
        var table = [Float](repeating: .infinity, count: graph.nodeCount * nodes.count)
        var costs = [Float](repeating: .infinity, count: graph.nodeCount)
        for (index, landmark) in nodes.enumerated() {
            Self.costs(from: Int(landmark), graph: graph, weights: weights, into: &costs)
            Self.store(costs, column: index, of: nodes.count, in: &table)
        }
        self.init(nodes: nodes, distance: table, symmetric: Self.isSymmetric(graph, weights))
    }

    private init(nodes: [Int32], distance: [Float], symmetric: Bool) {
        self.nodes = nodes
        self.distance = distance
        self.symmetric = symmetric
    }

    /// `count` landmarks spread over the graph by farthest-point selection under `weights` (the
    /// first is the node farthest from node 0, each next one the node farthest from all chosen),
    /// with their costs under `weights`; nil for an empty graph.
    static func spread(graph: CampusGraph, weights: [Float], count: Int) -> Landmarks? {
        guard graph.nodeCount > 0, count > 0 else { return nil }
        var costs = [Float](repeating: .infinity, count: graph.nodeCount)
        var nearest = [Float](repeating: .infinity, count: graph.nodeCount)
        var columns: [[Float]] = []
        Self.costs(from: 0, graph: graph, weights: weights, into: &costs)
        var chosen: [Int32] = []
        var next = farthest(costs)
        while chosen.count < count, let node = next, !chosen.contains(Int32(node)) {
            chosen.append(Int32(node))
            Self.costs(from: node, graph: graph, weights: weights, into: &costs)
            columns.append(costs)
            for index in nearest.indices { nearest[index] = min(nearest[index], costs[index]) }
            next = farthest(nearest)
        }
        guard !chosen.isEmpty else { return nil }
        var table = [Float](repeating: .infinity, count: graph.nodeCount * chosen.count)
        for (index, column) in columns.enumerated() {
            store(column, column: index, of: chosen.count, in: &table)
        }
        return Landmarks(nodes: chosen, distance: table, symmetric: isSymmetric(graph, weights))
    }

    static func store(_ costs: [Float], column: Int, of columns: Int, in table: inout [Float]) {
        table.withUnsafeMutableBufferPointer { table in
            for (node, cost) in costs.enumerated() { table[node * columns + column] = cost }
        }
    }

    /// Whether every edge u → v has an edge v → u of the same cost.
    static func isSymmetric(_ graph: CampusGraph, _ weights: [Float]) -> Bool {
        for node in 0..<graph.nodeCount {
            for edge in Int(graph.edgeStart[node])..<Int(graph.edgeStart[node + 1]) {
                let head = Int(graph.edgeTarget[edge])
                let reverse = (Int(graph.edgeStart[head])..<Int(graph.edgeStart[head + 1])).first {
                    Int(graph.edgeTarget[$0]) == node && weights[$0] == weights[edge]
                }
                if reverse == nil { return false }
            }
        }
        return true
    }

    /// The node of greatest finite cost, if any is above zero.
    static func farthest(_ costs: [Float]) -> Int? {
        var best: Int?
        var bestCost: Float = 0
        for (node, cost) in costs.enumerated() where cost.isFinite && cost > bestCost {
            best = node
            bestCost = cost
        }
        return best
    }

    /// Dijkstra from `source` over the whole graph.
    static func costs(from source: Int, graph: CampusGraph, weights: [Float], into costs: inout [Float]) {
        let workspace = SearchWorkspace(nodeCount: graph.nodeCount)
        var heap = MinHeap(storage: workspace.heapStorage, capacity: workspace.heapCapacity)
        defer {
            workspace.heapStorage = heap.storage
            workspace.heapCapacity = heap.capacity
        }
        costs.withUnsafeMutableBufferPointer { cost in
            for index in cost.indices { cost[index] = .infinity }
            graph.edgeStart.withUnsafeBufferPointer { start in
                graph.edgeTarget.withUnsafeBufferPointer { heads in
                    weights.withUnsafeBufferPointer { weight in
                        cost[source] = 0
                        heap.push(0, Int32(source))
                        while let entry = heap.pop() {
                            let node = Int(entry.node)
                            if entry.key > cost[node] { continue }
                            for edge in Int(start[node])..<Int(start[node + 1]) {
                                let candidate = entry.key + weight[edge]
                                let head = Int(heads[edge])
                                if candidate < cost[head] {
                                    cost[head] = candidate
                                    heap.push(candidate, Int32(head))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Up to `limit` landmarks that bound the cost from `source` to `target` best, with their
    /// costs to `target`: the ones a query uses.
    func active(from source: Int, to target: Int, limit: Int) -> [(index: Int, toTarget: Float)] {
        let count = nodes.count
        var candidates: [(index: Int, toTarget: Float, bound: Float)] = []
        for index in 0..<count {
            let toSource = distance[source * count + index]
            let toTarget = distance[target * count + index]
            guard toSource.isFinite, toTarget.isFinite else { continue }
            candidates.append((index, toTarget, symmetric ? abs(toTarget - toSource) : toTarget - toSource))
        }
        candidates.sort { $0.bound > $1.bound }
        return candidates.prefix(limit).map { ($0.index, $0.toTarget) }
    }
}
