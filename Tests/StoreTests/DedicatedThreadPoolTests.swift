import Contract
import Dispatch
import Foundation
import ServiceKit
import Store
import Synchronization
import Testing

/// Admission control of the dedicated thread pools (auth's hashing, printing's rendering): a
/// bounded queue for requests, requests past their deadline dropped unrun, jobs never refused.
@Suite("dedicated thread pool: admission")
struct DedicatedThreadPoolTests {
    /// A gate the pool's only thread waits at, so the test decides when work may go on.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        func wait() { semaphore.wait() }
        func open() { semaphore.signal() }
    }

    /// What ran, in order.
    final class Ran: Sendable {
        let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// A flag set from another thread.
    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    /// Waits (bounded) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw ServiceError(.deadlineExceeded, "condition never held") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static let farFuture = Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000

    @Test(
        "a full request queue refuses at once with unavailable and Retry-After; jobs still queue; the waiting ones finish"
    )
    func boundedQueue() async throws {
        let pool = DedicatedThreadPool(name: "admission", threads: 1, queueLimit: 2)
        let gate = Gate()
        let ran = Ran()
        let started = Flag()
        async let blocker: Void = pool.run {
            started.set()
            gate.wait()
        }
        try await Self.eventually { started.isSet }
        async let first: Void = RequestDeadline.$current.withValue(Self.farFuture) {
            try await pool.run { ran.append("first") }
        }
        // The two child tasks start in either order; wait for the first to queue before the second.
        try await Self.eventually { pool.waitingRequests == 1 }
        async let second: Void = RequestDeadline.$current.withValue(Self.farFuture) {
            try await pool.run { ran.append("second") }
        }
        try await Self.eventually { pool.waitingRequests == 2 }

        let refusal = await #expect(throws: ServiceError.self) {
            try await RequestDeadline.$current.withValue(Self.farFuture) {
                try await pool.run { ran.append("third") }
            }
        }
        #expect(refusal?.code == .unavailable)
        #expect((refusal?.retryAfterSeconds ?? 0) >= 1)
        // Work outside a request (a print job) is never refused.
        async let job: Void = pool.run { ran.append("job") }

        gate.open()
        try await blocker
        try await first
        try await second
        try await job
        #expect(ran.all == ["first", "second", "job"])
        #expect(pool.waitingRequests == 0)
    }

    @Test("a request whose deadline passes while it waits is answered deadline_exceeded and never run")
    func expiredWhileWaiting() async throws {
        let clock = ManualClock()
        let pool = DedicatedThreadPool(name: "expiry", threads: 1, queueLimit: 8, clock: clock)
        let gate = Gate()
        let ran = Flag()
        let started = Flag()
        async let blocker: Void = pool.run {
            started.set()
            gate.wait()
        }
        try await Self.eventually { started.isSet }
        let deadline = Int64(clock.now().timeIntervalSince1970 * 1000) + 1_000
        async let late: Void = RequestDeadline.$current.withValue(deadline) {
            try await pool.run { ran.set() }
        }
        try await Self.eventually { pool.waitingRequests == 1 }
        clock.advance(by: 2)
        gate.open()
        try await blocker
        var outcome: ServiceError?
        do { try await late } catch let error as ServiceError { outcome = error }
        #expect(outcome?.code == .deadlineExceeded)
        #expect(!ran.isSet)

        // Within its deadline, the same request runs.
        let fresh = Int64(clock.now().timeIntervalSince1970 * 1000) + 1_000
        let answer = try await RequestDeadline.$current.withValue(fresh) { try await pool.run { 42 } }
        #expect(answer == 42)
    }
}
