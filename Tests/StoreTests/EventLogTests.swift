import Foundation
import PostgresNIO
import Store
import Testing

@Suite("Event log: append and read", .serialized)
struct EventLogTests {
    typealias Support = EventLogTestSupport
    private struct Rollback: Error {}

    @Test func appendedEventReadsBackWithItsFields() async throws {
        try await Support.withEventLog { client, log in
            let new = Support.event("orders.paid", 7)
            let stored = try await Support.appendCommitted([new], to: log, client: client)[0]
            #expect(stored.id == new.id && stored.topic == "orders.paid" && stored.producer == "tests")
            #expect(stored.requestId == "req-7")
            #expect(stored.createdAt == new.createdAt)
            let read = try await Support.waitForReadable(1, in: log)
            #expect(read == [stored])
            let json = try JSONSerialization.jsonObject(with: read[0].payload) as? [String: Int]
            #expect(json == ["n": 7])
        }
    }

    @Test func severalEventsAppendedInOneStatementKeepTheirOrderAndFields() async throws {
        try await Support.withEventLog { client, log in
            var quiet = Support.event("orders.state_changed", 2)
            quiet.requestId = nil
            let batch = [Support.event("orders.paid", 1), quiet, Support.event("orders.paid", 3)]
            let stored = try await client.withTransaction(logger: TestDatabase.logger) { connection in
                try await log.append(batch, on: connection)
            }
            #expect(stored.map(\.id) == batch.map(\.id))
            #expect(stored.map(\.topic) == ["orders.paid", "orders.state_changed", "orders.paid"])
            #expect(stored.map(\.requestId) == ["req-1", nil, "req-3"])
            #expect(stored.map(\.createdAt) == batch.map(\.createdAt))
            #expect(stored.map(\.seq) == stored.map(\.seq).sorted() && Set(stored.map(\.xid)).count == 1)
            let read = try await Support.waitForReadable(3, in: log)
            #expect(read == stored)
            let numbers = try read.map { try JSONSerialization.jsonObject(with: $0.payload) as? [String: Int] }
            #expect(numbers == [["n": 1], ["n": 2], ["n": 3]])
        }
    }

    @Test("an event keeps the traceparent of the work that appended it, alone or in a batch; none is none")
    func eventsCarryTheirTraceparent() async throws {
        try await Support.withEventLog { client, log in
            let traced = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            var single = Support.event("orders.paid", 1)
            single.traceparent = traced
            var batched = Support.event("orders.paid", 2)
            batched.traceparent = traced
            let stored =
                try await Support.appendCommitted([single], to: log, client: client)
                + Support.appendCommitted([batched, Support.event("orders.paid", 3)], to: log, client: client)
            #expect(stored.map(\.traceparent) == [traced, traced, nil])
            let read = try await Support.waitForReadable(3, in: log)
            #expect(read.map(\.traceparent) == [traced, traced, nil])
        }
    }

    @Test func eventAppendedInRolledBackTransactionIsNeverSeen() async throws {
        try await Support.withEventLog { client, log in
            let ghost = Support.event("orders.paid", 1)
            await #expect(throws: (any Error).self) {
                try await client.withTransaction(logger: TestDatabase.logger) { connection in
                    try await log.append(ghost, on: connection)
                    throw Rollback()
                }
            }
            let real = try await Support.appendCommitted([Support.event("orders.paid", 2)], to: log, client: client)[0]
            let read = try await Support.waitForReadable(1, in: log)
            #expect(read.map(\.id) == [real.id])
            #expect(!read.contains { $0.id == ghost.id })
        }
    }

    /// Tx A appends first (lower seq, lower xid) and stays open; tx B appends and commits.
    /// While A is open nothing is readable (B sorts after A's position); once A commits both are
    /// read, A first, nothing skipped.
    @Test func lateCommitTrapWhenTheOpenTransactionHasTheLowerXid() async throws {
        try await Support.withEventLog { client, log in
            try await client.withConnection { connA in
                try await client.withConnection { connB in
                    let logger = TestDatabase.logger
                    try await connA.query("BEGIN", logger: logger)
                    let a = try await log.append(Support.event("t", 1), on: connA)
                    try await connB.query("BEGIN", logger: logger)
                    let b = try await log.append(Support.event("t", 2), on: connB)
                    try await connB.query("COMMIT", logger: logger)
                    #expect(a.seq < b.seq && a.xid < b.xid)

                    // B is committed, yet reading must not hand it out before A: a consumer that
                    // advanced past B would never see A.
                    let early = try await log.fetch(after: .start)
                    #expect(early.isEmpty)

                    try await connA.query("COMMIT", logger: logger)
                    let read = try await Support.waitForReadable(2, in: log)
                    #expect(read.map(\.id) == [a.id, b.id])
                }
            }
        }
    }

    /// B takes its xid first, then A appends (lower seq, higher xid) and stays open, then B appends
    /// and commits. B is readable at once; A, committed later, sorts after B's cursor and is read
    /// next, although its seq is lower than B's (a `seq > last` reader would skip it).
    @Test func lateCommitTrapWhenTheCommittedTransactionTookItsXidFirst() async throws {
        try await Support.withEventLog { client, log in
            try await client.withConnection { connA in
                try await client.withConnection { connB in
                    let logger = TestDatabase.logger
                    try await connB.query("BEGIN", logger: logger)
                    try await connB.query("SELECT pg_current_xact_id()", logger: logger)
                    try await connA.query("BEGIN", logger: logger)
                    let a = try await log.append(Support.event("t", 1), on: connA)
                    let b = try await log.append(Support.event("t", 2), on: connB)
                    try await connB.query("COMMIT", logger: logger)
                    #expect(a.seq < b.seq)
                    #expect(b.xid < a.xid)

                    var first: [StoredEvent] = []
                    try await TestDatabase.eventually("B readable while A is open") {
                        first = try await log.fetch(after: .start)
                        return !first.isEmpty
                    }
                    #expect(first.map(\.id) == [b.id])
                    let cursor = first[0].cursor

                    // Still nothing after B while A is open.
                    #expect(try await log.fetch(after: cursor).isEmpty)

                    try await connA.query("COMMIT", logger: logger)
                    var next: [StoredEvent] = []
                    try await TestDatabase.eventually("A readable after B's cursor") {
                        next = try await log.fetch(after: cursor)
                        return !next.isEmpty
                    }
                    #expect(next.map(\.id) == [a.id])
                    #expect(try await log.fetch(after: next[0].cursor).isEmpty)
                }
            }
        }
    }

    @Test func fetchPagesInOrderAndFiltersByTopic() async throws {
        try await Support.withEventLog { client, log in
            var appended: [StoredEvent] = []
            for n in 0..<5 {
                appended += try await Support.appendCommitted(
                    [Support.event("a", n), Support.event("b", n)], to: log, client: client
                )
            }
            let all = try await Support.waitForReadable(10, in: log)
            #expect(all.map(\.id) == appended.map(\.id))

            var paged: [StoredEvent] = []
            var cursor = EventCursor.start
            while true {
                let page = try await log.fetch(after: cursor, limit: 3)
                guard let last = page.last else { break }
                paged += page
                cursor = last.cursor
            }
            #expect(paged.map(\.id) == appended.map(\.id))

            let onlyB = try await log.fetch(after: .start, topics: ["b"], limit: 100)
            #expect(onlyB.map(\.id) == appended.filter { $0.topic == "b" }.map(\.id))
            #expect(try await log.fetch(after: .start, topics: [], limit: 100).isEmpty)
        }
    }

    /// Regression: the reader selects `xid::text`, whose output column is also called `xid`, and
    /// `ORDER BY xid` once sorted by that text ("10" before "9"), so paging skipped events
    /// whenever transaction ids crossed a power of ten.
    @Test func transactionIdsAreOrderedAsNumbersNotText() async throws {
        try await Support.withEventLog { client, log in
            let schema = log.schema
            for (xid, n) in [(9, 1), (10, 2), (100, 3)] {
                let event = Support.event("digits", n)
                try await client.query(
                    """
                    INSERT INTO \(unescaped: schema).log (id, topic, producer, payload, request_id, created_at, xid)
                    VALUES (\(event.id), 'digits', 'tests', '{}'::jsonb, \(event.requestId), \(event.createdAt),
                            \(String(xid))::text::xid8)
                    """, logger: TestDatabase.logger)
            }
            var paged: [UInt64] = []
            var cursor = EventCursor.start
            while true {
                let page = try await log.fetch(after: cursor, topics: ["digits"], limit: 1)
                guard let last = page.last else { break }
                paged += page.map(\.xid)
                cursor = last.cursor
            }
            #expect(paged == [9, 10, 100])
        }
    }
}
