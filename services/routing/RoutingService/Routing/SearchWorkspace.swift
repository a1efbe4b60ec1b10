import Synchronization

/// The per-search arrays of A* (scores, parents, a binary heap), reused across queries so a
/// route query allocates almost nothing. Generation stamps make "reset" O(1).
final class SearchWorkspace {
    var score: [Float]
    var parentEdge: [Int32]
    var seen: [UInt32]
    var closed: [UInt32]
    var generation: UInt32 = 0
    var heapKey: [Float] = []
    var heapNode: [Int32] = []

    init(nodeCount: Int) {
        score = [Float](repeating: 0, count: nodeCount)
        parentEdge = [Int32](repeating: -1, count: nodeCount)
        seen = [UInt32](repeating: 0, count: nodeCount)
        closed = [UInt32](repeating: 0, count: nodeCount)
        heapKey.reserveCapacity(1024)
        heapNode.reserveCapacity(1024)
    }

    var nodeCount: Int { score.count }

    /// Starts a new search: every node unseen, the heap empty.
    func begin() {
        generation &+= 1
        if generation == 0 {
            for index in seen.indices {
                seen[index] = 0
                closed[index] = 0
            }
            generation = 1
        }
        heapKey.removeAll(keepingCapacity: true)
        heapNode.removeAll(keepingCapacity: true)
    }

    func push(_ key: Float, _ node: Int32) {
        var child = heapKey.count
        heapKey.append(key)
        heapNode.append(node)
        while child > 0 {
            let parent = (child - 1) / 2
            if heapKey[parent] <= key { break }
            heapKey[child] = heapKey[parent]
            heapNode[child] = heapNode[parent]
            child = parent
        }
        heapKey[child] = key
        heapNode[child] = node
    }

    func pop() -> (key: Float, node: Int32)? {
        guard let lastKey = heapKey.popLast(), let lastNode = heapNode.popLast() else { return nil }
        guard !heapKey.isEmpty else { return (lastKey, lastNode) }
        let top = (heapKey[0], heapNode[0])
        let count = heapKey.count
        var parent = 0
        while true {
            var child = 2 * parent + 1
            if child >= count { break }
            if child + 1 < count, heapKey[child + 1] < heapKey[child] { child += 1 }
            if heapKey[child] >= lastKey { break }
            heapKey[parent] = heapKey[child]
            heapNode[parent] = heapNode[child]
            parent = child
        }
        heapKey[parent] = lastKey
        heapNode[parent] = lastNode
        return top
    }
}

/// Workspaces to lend to concurrent searches, one per search at a time.
final class WorkspacePool: Sendable {
    // A workspace is only ever touched by the one search that took it out of the pool, between
    // `take` and `give`, so the class itself needs no lock.
    private struct Entry: @unchecked Sendable { let workspace: SearchWorkspace }
    private let free = Mutex<[Entry]>([])

    func take(nodeCount: Int) -> SearchWorkspace {
        let entry = free.withLock { $0.popLast() }
        if let entry, entry.workspace.nodeCount == nodeCount { return entry.workspace }
        return SearchWorkspace(nodeCount: nodeCount)
    }

    func give(_ workspace: SearchWorkspace) {
        let entry = Entry(workspace: workspace)
        free.withLock { if $0.count < 64 { $0.append(entry) } }
    }
}
