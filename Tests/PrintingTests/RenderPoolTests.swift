import Foundation
import ServiceKit
import Synchronization
import Testing

@testable import PrintingService

/// The render pool: work runs on its own named threads, never more at once than it has, and
/// results and errors come back to the awaiting task.
@Suite("printing: the render pool")
struct RenderPoolTests {
    struct Refused: Error {}

    /// How many jobs run now, and the most that ever ran at once.
    final class Concurrency: Sendable {
        let state = Mutex((now: 0, most: 0))
    }

    @Test("20 jobs on a pool of 2: each on one of the pool's threads, at most 2 at once, every result back")
    func boundedAndDedicated() async throws {
        let pool = DedicatedThreadPool(name: "render", threads: 2)
        let running = Concurrency()
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await pool.run {
                        running.state.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        defer { running.state.withLock { $0.now -= 1 } }
                        // Some real work, so that jobs overlap when the pool lets them.
                        let pixels = EditPixelTests.image(width: 120, height: 80)
                        _ = EditPixelTests.edited(pixels, [.filter(.sepia), .brightness(amount: 0.1)])
                        return (
                            index * index,
                            DedicatedThreadPool.currentThread.map { "\($0.name)-\($0.index)" } ?? "not a pool thread"
                        )
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.map(\.0).sorted() == (0..<20).map { $0 * $0 })
        #expect(results.allSatisfy { $0.1 == "render-1" || $0.1 == "render-2" }, "\(Set(results.map(\.1)))")
        #expect(running.state.withLock { $0.most } <= 2)
        #expect(DedicatedThreadPool.currentThread == nil, "the test itself runs off the pool")
        await #expect(throws: Refused.self) { try await pool.run { throw Refused() } }
    }
}
