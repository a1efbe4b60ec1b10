import Foundation
import PostgresNIO
import Store
import Testing

@Suite("Job queue against PostgreSQL")
struct JobQueueTests {
    /// Runs `body` with a job table in a fresh schema, created through the Migrator as a
    /// service would, and a queue on a ManualClock.
    private func withQueue<T>(
        backoff: Backoff = Backoff(base: 10, cap: 100),
        _ body: (PostgresClient, JobQueue, ManualClock) async throws -> T
    ) async throws -> T {
        try await TestDatabase.withSchema("jobs") { client, schema in
            try await Migrator(client: client, schema: schema, logger: TestDatabase.logger).migrate([
                Migration(version: 1, name: "jobs", sql: JobQueue.migrationSQL(schema: schema, table: "jobs"))
            ])
            let clock = ManualClock()
            let queue = JobQueue(
                client: client, schema: schema, table: "jobs", clock: clock, backoff: backoff,
                logger: TestDatabase.logger
            )
            return try await body(client, queue, clock)
        }
    }

    private func payload(_ n: Int) -> Data { Data(#"{"card": \#(n)}"#.utf8) }

    @Test func backoffIsExponentialAndCapped() {
        let backoff = Backoff(base: 10, cap: 100)
        #expect((1...6).map { backoff.delay(afterAttempt: $0) } == [10, 20, 40, 80, 100, 100])
        #expect(Backoff(base: 1, cap: 1_000, multiplier: 3).delay(afterAttempt: 3) == 9)
        #expect(Backoff().delay(afterAttempt: 10_000) == 600)
    }

    @Test func twoConcurrentClaimersGetDisjointJobs() async throws {
        try await withQueue { _, queue, _ in
            var enqueued: Set<UUID> = []
            for n in 0..<30 { enqueued.insert(try await queue.enqueue(kind: "render", payload: payload(n))) }

            let claimed = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        var mine: [UUID] = []
                        while true {
                            let jobs = try await queue.claim(limit: 4, lease: 60)
                            if jobs.isEmpty { return mine }
                            mine += jobs.map(\.id)
                            for job in jobs { try await queue.complete(job) }
                        }
                    }
                }
                var all: [[UUID]] = []
                for try await ids in group { all.append(ids) }
                return all
            }
            #expect(Set(claimed[0]).isDisjoint(with: Set(claimed[1])))
            #expect(claimed[0].count + claimed[1].count == 30)
            #expect(Set(claimed[0] + claimed[1]) == enqueued)
            #expect(try await queue.counts() == [.queued: 0, .running: 0, .done: 30, .dead: 0])
        }
    }

    @Test func claimReturnsTheJobWithItsFieldsAndOnlyWhenDue() async throws {
        try await withQueue { _, queue, clock in
            let start = clock.now()
            let id = try await queue.enqueue(
                kind: "deliver", payload: payload(1), runAt: start.addingTimeInterval(30), maxAttempts: 3
            )
            #expect(try await queue.claim(lease: 60).isEmpty)
            clock.advance(by: 30)
            let job = try #require(try await queue.claim(lease: 60).first)
            #expect(job.id == id && job.kind == "deliver" && job.state == .running)
            #expect(job.attempts == 1 && job.maxAttempts == 3)
            #expect(job.lockedUntil == start.addingTimeInterval(90))
            #expect(job.createdAt == start)
            let json = try JSONSerialization.jsonObject(with: job.payload) as? [String: Int]
            #expect(json == ["card": 1])
            #expect(try await queue.claim(kinds: ["other"], lease: 60).isEmpty)
        }
    }

    @Test func claimCanBeRestrictedToKinds() async throws {
        try await withQueue { _, queue, _ in
            try await queue.enqueue(kind: "render", payload: payload(1))
            let mail = try await queue.enqueue(kind: "email", payload: payload(2))
            let claimed = try await queue.claim(kinds: ["email"], limit: 10, lease: 60)
            #expect(claimed.map(\.id) == [mail])
        }
    }

    @Test func failedJobIsRetriedAfterTheBackoff() async throws {
        try await withQueue { _, queue, clock in
            try await queue.enqueue(kind: "render", payload: payload(1), maxAttempts: 5)
            var expectedDelays: [TimeInterval] = [10, 20, 40, 80]
            while !expectedDelays.isEmpty {
                let delay = expectedDelays.removeFirst()
                let job = try #require(try await queue.claim(lease: 5).first)
                let outcome = try await queue.fail(job, reason: "printer jammed \(job.attempts)")
                #expect(outcome == .retry(at: clock.now().addingTimeInterval(delay)))

                let stored = try #require(try await queue.job(id: job.id))
                #expect(stored.state == .queued)
                #expect(stored.runAt == clock.now().addingTimeInterval(delay))
                #expect(stored.lastError == "printer jammed \(job.attempts)")
                #expect(stored.lockedUntil == nil)

                clock.advance(by: delay - 1)
                #expect(try await queue.claim(lease: 5).isEmpty, "claimed before its back-off elapsed")
                clock.advance(by: 1)
            }
            let last = try #require(try await queue.claim(lease: 5).first)
            #expect(last.attempts == 5)
        }
    }

    @Test func jobIsDeadLetteredWithTheReasonAfterMaxAttempts() async throws {
        try await withQueue { _, queue, clock in
            let id = try await queue.enqueue(kind: "render", payload: payload(1), maxAttempts: 2)
            let first = try #require(try await queue.claim(lease: 5).first)
            #expect(
                try await queue.fail(first, reason: "font missing") == .retry(at: clock.now().addingTimeInterval(10)))
            clock.advance(by: 10)
            let second = try #require(try await queue.claim(lease: 5).first)
            #expect(second.attempts == 2)
            #expect(try await queue.fail(second, reason: "font still missing") == .dead(reason: "font still missing"))

            clock.advance(by: 10_000)
            #expect(try await queue.claim(lease: 5).isEmpty)
            let dead = try await queue.deadLetters()
            #expect(dead.map(\.id) == [id])
            #expect(dead[0].state == .dead)
            #expect(dead[0].deadReason == "font still missing")
            #expect(dead[0].attempts == 2)
            #expect(try await queue.counts() == [.queued: 0, .running: 0, .done: 0, .dead: 1])
        }
    }

    @Test("depth: queued, running and dead jobs, and how long the oldest due job has waited")
    func depthCountsEachStateAndTheOldestDueJob() async throws {
        try await withQueue { client, queue, clock in
            #expect(try await queue.depth() == QueueDepth(queued: 0, running: 0, dead: 0, oldestDue: nil))
            let start = clock.now()
            for n in 0..<3 { try await queue.enqueue(kind: "render", payload: payload(n)) }
            try await queue.enqueue(kind: "render", payload: payload(9), runAt: start.addingTimeInterval(3_600))
            clock.advance(by: 30)
            let running = try await queue.claim(lease: 60)
            let dead = try #require(try await queue.claim(lease: 60).first)
            _ = try await queue.fail(dead, reason: "invalid image", permanent: true)
            #expect(running.count == 1)
            // Two due jobs were claimed, one is due since `start`, one waits for its hour.
            #expect(try await queue.depth() == QueueDepth(queued: 2, running: 1, dead: 1, oldestDue: start))
            #expect(try await JobQueue.tables(in: queue.schema, client: client, logger: TestDatabase.logger) == ["jobs"])
        }
    }

    @Test("a dead letter retried is queued again with its attempts; discarded, it is gone; other states are left alone")
    func deadLettersAreRetriedAndDiscarded() async throws {
        try await withQueue { _, queue, clock in
            let first = try await queue.enqueue(kind: "render", payload: payload(1), maxAttempts: 2)
            let second = try await queue.enqueue(kind: "render", payload: payload(2), maxAttempts: 2)
            let alive = try await queue.enqueue(kind: "render", payload: payload(3), runAt: clock.now().addingTimeInterval(3_600))
            for job in try await queue.claim(limit: 2, lease: 5) {
                _ = try await queue.fail(job, reason: "invalid image", permanent: true)
            }
            #expect(Set(try await queue.deadLetters().map(\.id)) == [first, second])
            clock.advance(by: 60)

            let retried = try #require(try await queue.retryDead(id: first))
            #expect(retried.state == .queued && retried.attempts == 0 && retried.runAt == clock.now())
            #expect(retried.deadReason == nil && retried.lastError == "invalid image")
            #expect(try await queue.retryDead(id: first) == nil, "retried twice")
            #expect(try await queue.retryDead(id: alive) == nil, "a queued job is not a dead letter")
            #expect(try await queue.retryDead(id: UUID()) == nil)
            let again = try #require(try await queue.claim(lease: 5).first)
            #expect(again.id == first && again.attempts == 1)

            #expect(try await queue.discardDead(id: second))
            #expect(try await queue.discardDead(id: second) == false)
            #expect(try await queue.discardDead(id: alive) == false)
            #expect(try await queue.job(id: second) == nil)
            #expect(try await queue.job(id: alive)?.state == .queued)
            #expect(try await queue.deadLetters().isEmpty)
        }
    }

    @Test func permanentFailureIsDeadLetteredAtOnce() async throws {
        try await withQueue { _, queue, _ in
            try await queue.enqueue(kind: "render", payload: payload(1), maxAttempts: 5)
            let job = try #require(try await queue.claim(lease: 5).first)
            #expect(
                try await queue.fail(job, reason: "invalid image", permanent: true) == .dead(reason: "invalid image"))
            #expect(try await queue.deadLetters().first?.deadReason == "invalid image")
        }
    }

    @Test func expiredLeaseIsReclaimedAndTheStaleWorkerLosesIt() async throws {
        try await withQueue { _, queue, clock in
            let id = try await queue.enqueue(kind: "render", payload: payload(1), maxAttempts: 3)
            let crashed = try #require(try await queue.claim(lease: 30).first)
            #expect(try await queue.claim(lease: 30).isEmpty)
            clock.advance(by: 29)
            #expect(try await queue.claim(lease: 30).isEmpty, "reclaimed before its lease expired")
            clock.advance(by: 1)

            let reclaimed = try #require(try await queue.claim(lease: 30).first)
            #expect(reclaimed.id == id)
            #expect(reclaimed.attempts == 2)
            #expect(reclaimed.lastError == "lease expired (worker lost)")

            let error = try await #require(throws: StoreError.self) { try await queue.complete(crashed) }
            #expect(error.code == .jobLeaseLost)
            await #expect(throws: StoreError.self) { try await queue.fail(crashed, reason: "late") }

            try await queue.complete(reclaimed)
            #expect(try await queue.counts()[.done] == 1)
            await #expect(throws: StoreError.self) { try await queue.complete(reclaimed) }
        }
    }

    @Test func expiredLeaseOnTheLastAttemptDeadLettersTheJob() async throws {
        try await withQueue { _, queue, clock in
            let id = try await queue.enqueue(kind: "render", payload: payload(1), maxAttempts: 1)
            _ = try #require(try await queue.claim(lease: 30).first)
            clock.advance(by: 31)
            #expect(try await queue.claim(lease: 30).isEmpty)
            let dead = try #require(try await queue.deadLetters().first)
            #expect(dead.id == id)
            #expect(dead.deadReason == "lease expired on attempt 1 of 1 (worker lost)")
        }
    }

    @Test func dedupeKeyReturnsTheExistingJob() async throws {
        try await withQueue { _, queue, _ in
            let first = try await queue.enqueue(kind: "email", payload: payload(1), dedupeKey: "order-42-receipt")
            let second = try await queue.enqueue(kind: "email", payload: payload(2), dedupeKey: "order-42-receipt")
            let other = try await queue.enqueue(kind: "email", payload: payload(3), dedupeKey: "order-43-receipt")
            #expect(first == second)
            #expect(other != first)
            #expect(try await queue.counts()[.queued] == 2)
            #expect(
                try await queue.job(id: first)?.payload == payload(1), "jsonb prints this payload exactly as written")
        }
    }

    @Test func enqueueJoinsTheCallersTransaction() async throws {
        try await withQueue { client, queue, _ in
            struct Rollback: Error {}
            await #expect(throws: (any Error).self) {
                try await client.withTransaction(logger: TestDatabase.logger) { connection in
                    try await queue.enqueue(kind: "email", payload: payload(1), on: connection)
                    throw Rollback()
                }
            }
            #expect(try await queue.counts()[.queued] == 0)
            let id = try await client.withTransaction(logger: TestDatabase.logger) { connection in
                try await queue.enqueue(kind: "email", payload: payload(2), on: connection)
            }
            #expect(try await queue.job(id: id)?.state == .queued)
        }
    }

    @Test func invalidArgumentsAreRejected() async throws {
        try await withQueue { _, queue, _ in
            await #expect(throws: StoreError.self) {
                try await queue.enqueue(kind: "x", payload: payload(1), maxAttempts: 0)
            }
            await #expect(throws: StoreError.self) { try await queue.claim(limit: 0, lease: 5) }
            await #expect(throws: StoreError.self) { try await queue.claim(lease: 0) }
        }
    }
}
