import Synchronization

/// The per-search arrays of A* (scores, parents, a binary heap), reused across queries so a
/// route query allocates almost nothing. Generation stamps make "reset" O(1).
final class SearchWorkspace {
    var score: [Float]
    var parentEdge: [Int32]
    var seen: [UInt32]
    var closed: [UInt32]
    var generation: UInt32 = 0
    var heapStorage: UnsafeMutablePointer<HeapEntry>
    var heapCapacity = 4096

    init(nodeCount: Int) {
        score = [Float](repeating: 0, count: nodeCount)
        parentEdge = [Int32](repeating: -1, count: nodeCount)
        seen = [UInt32](repeating: 0, count: nodeCount)
        closed = [UInt32](repeating: 0, count: nodeCount)
        heapStorage = .allocate(capacity: heapCapacity)
    }

    var nodeCount: Int { score.count }

    /// Direct access to the per-node arrays for the search loop (no copy-on-write or
    /// exclusivity checks per access).
    func withBuffers<T>(
        _ body: (
            UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Int32>, UnsafeMutableBufferPointer<UInt32>,
            UnsafeMutableBufferPointer<UInt32>
        ) throws -> T
    ) rethrows -> T {
        try score.withUnsafeMutableBufferPointer { score in
            try parentEdge.withUnsafeMutableBufferPointer { parent in
                try seen.withUnsafeMutableBufferPointer { seen in
                    try closed.withUnsafeMutableBufferPointer { closed in try body(score, parent, seen, closed) }
                }
            }
        }
    }

    /// Starts a new search: every node unseen.
    func begin() {
        generation &+= 1
        if generation == 0 {
            for index in seen.indices {
                seen[index] = 0
                closed[index] = 0
            }
            generation = 1
        }
    }

    deinit { heapStorage.deallocate() }
}

/// One entry of the open set.
struct HeapEntry {
    var key: Float
    var node: Int32
}

/// A binary min-heap on memory the workspace owns, used as a local variable in the search loop
/// so its operations need no dynamic exclusivity checks.
struct MinHeap {
    var storage: UnsafeMutablePointer<HeapEntry>
    var capacity: Int
    var count = 0

    mutating func push(_ key: Float, _ node: Int32) {
        if count == capacity { grow() }
        var child = count
        count += 1
        while child > 0 {
            let parent = (child - 1) >> 1
            if storage[parent].key <= key { break }
            storage[child] = storage[parent]
            child = parent
        }
        storage[child] = HeapEntry(key: key, node: node)
    }

    mutating func pop() -> HeapEntry? {
        guard count > 0 else { return nil }
        let top = storage[0]
        count -= 1
        guard count > 0 else { return top }
        let last = storage[count]
        var parent = 0
        while true {
            var child = 2 * parent + 1
            if child >= count { break }
            if child + 1 < count, storage[child + 1].key < storage[child].key { child += 1 }
            if storage[child].key >= last.key { break }
            storage[parent] = storage[child]
            parent = child
        }
        storage[parent] = last
        return top
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<HeapEntry>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = bigger
        capacity *= 2
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
