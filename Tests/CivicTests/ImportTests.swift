import CivicContract
import CivicService
import Contract
import Foundation
import PostgresNIO
import Store
import Synchronization
import Testing

@Suite("civic: the importer against the Open States stand-in (PostgreSQL, a real HTTP feed)", .serialized)
struct ImportTests {
    @Test("a first import stores every bill, person and meeting of the four levels, one event per new bill")
    func firstImport() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                let stats = try await feed.stats()
                let report = try await db.importer(feed).run()
                #expect(report.billsNew == stats["bills"] as? Int)
                #expect(report.billsChanged == 0)
                #expect(try await db.count("SELECT count(*) FROM civic.bills") == stats["bills"] as? Int)
                #expect(try await db.count("SELECT count(*) FROM civic.people") == stats["people"] as? Int)
                #expect(try await db.count("SELECT count(*) FROM civic.meetings") == stats["events"] as? Int)
                #expect(try await db.count("SELECT count(DISTINCT level) FROM civic.bills") == 4)
                let events = try await db.introducedEvents()
                #expect(events.count == report.billsNew && events.values.allSatisfy { $0 == 1 })
                // Votes were linked to people the feed knows.
                #expect(
                    try await db.count(
                        "SELECT count(*) FROM civic.member_votes v JOIN civic.people p ON p.source_id = v.person_source_id")
                        > 0)
            }
        }
    }

    @Test("each person keeps their role's chamber; people stored before chambers were kept get theirs at the next import")
    func chambers() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                let importer = db.importer(feed, perPage: 100)
                try await importer.run()
                let state = "jurisdiction_id = 'ocd-jurisdiction/country:us/state:ca/government'"
                #expect(
                    try await db.count("SELECT count(*) FROM civic.people WHERE \(state) AND chamber = 'lower'") == 80)
                #expect(
                    try await db.count("SELECT count(*) FROM civic.people WHERE \(state) AND chamber = 'upper'") == 40)
                // An upper and a lower member with the same district number are two rows, told apart by chamber.
                #expect(
                    try await db.count(
                        """
                        SELECT count(*) FROM civic.people l JOIN civic.people u
                            ON u.jurisdiction_id = l.jurisdiction_id AND u.district = l.district
                        WHERE l.\(state) AND l.chamber = 'lower' AND u.chamber = 'upper'
                        """) == 40)
                #expect(try await db.count("SELECT count(*) FROM civic.people WHERE chamber IS NULL") == 0)
                // As rows written before migration 0005 look: no chamber, the fingerprint of then.
                let total = try await db.count("SELECT count(*) FROM civic.people")
                try await db.execute("UPDATE civic.people SET chamber = NULL, content_hash = 'before-0005'")
                let again = try await importer.run()
                #expect(again.people == total)
                #expect(try await db.count("SELECT count(*) FROM civic.people WHERE chamber IS NULL") == 0)
                #expect(try await importer.run().people == 0, "and then nothing changes")
            }
        }
    }

    @Test("importing the same feed again changes nothing and appends no event")
    func idempotentReimport() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                let importer = db.importer(feed)
                let first = try await importer.run()
                // Forget the cursor, so the second run reads every bill again.
                try await db.client.query("DELETE FROM civic.import_cursors", logger: CivicDatabase.logger)
                let second = try await importer.run()
                #expect(second.billsNew == 0 && second.billsChanged == 0)
                #expect(second.billsUnchanged == first.billsNew)
                #expect(second.people == 0 && second.meetings == 0)
                #expect(try await db.count("SELECT count(*) FROM civic.bill_changes") == 0)
                #expect(try await db.introducedEvents().values.reduce(0, +) == first.billsNew)
                // With the cursor kept, a third run asks only for bills updated since the newest seen
                // (inclusive: each jurisdiction's newest bill is read again, and changes nothing).
                let third = try await importer.run()
                #expect(third.billsNew == 0 && third.billsChanged == 0)
                let newest = try await db.count(
                    """
                    SELECT count(*) FROM civic.bills b WHERE source_updated_at =
                        (SELECT max(source_updated_at) FROM civic.bills x WHERE x.jurisdiction_id = b.jurisdiction_id)
                    """)
                #expect(third.billsUnchanged == newest && newest < first.billsNew / 10)
            }
        }
    }

    @Test("a changed bill records what changed; a new bill appends civic.bill_introduced")
    func changesAndNewBills() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                let importer = db.importer(feed)
                let first = try await importer.run()
                let touched = try await feed.control("touch", ["count": 3])["touched"] as? [[String: Any]] ?? []
                let introduced =
                    try await feed.control("introduce", ["count": 2])["introduced"] as? [[String: Any]] ?? []
                #expect(touched.count == 3 && introduced.count == 2)
                let second = try await importer.run()
                #expect(second.billsChanged == 3 && second.billsNew == 2)
                let rows = try await db.client.query(
                    """
                    SELECT b.source_id, b.title, c.fields FROM civic.bill_changes c JOIN civic.bills b ON b.id = c.bill_id
                    """, logger: CivicDatabase.logger)
                var changed: [String: (String, [String])] = [:]
                for try await (source, title, fields) in rows.decode((String, String, [String]).self) {
                    changed[source] = (title, fields)
                }
                for bill in touched {
                    let id = try #require(bill["id"] as? String)
                    let (title, fields) = try #require(changed[id])
                    #expect(title == bill["title"] as? String)
                    #expect(fields.contains("title") && fields.contains("actions"))
                    #expect(!fields.contains("sponsors"))
                }
                let events = try await db.introducedEvents()
                #expect(events.values.reduce(0, +) == first.billsNew + 2)
                let newIds = Set(introduced.compactMap { $0["id"] as? String })
                let stored = try await db.client.query(
                    "SELECT source_id FROM civic.bills WHERE source_id = ANY(\(Array(newIds)))", logger: CivicDatabase.logger)
                var found = Set<String>()
                for try await id in stored.decode(String.self) { found.insert(id) }
                #expect(found == newIds)
            }
        }
    }

    @Test("bills changed and added while an import pages through the feed make it skip none")
    func feedChangesMidImport() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                let state = "ocd-jurisdiction/country:us/state:ca/government"
                // Right after the second page of the state's bills (10 a page), its 15 least recently
                // updated bills (all read by then) change and 5 are added: each moves to the end of
                // the order, and with page numbers alone the 15 bills behind them would slip onto
                // pages already read.
                try await feed.control(
                    "faults", ["changes": [["jurisdiction": state, "nth": 2, "touch": 15, "introduce": 5]]])
                let report = try await db.importer(feed, perPage: 10).run()
                let bills = try #require(try await feed.stats()["bills"] as? Int)
                #expect(try await db.count("SELECT count(*) FROM civic.bills") == bills)
                #expect(report.billsNew == bills)
                #expect(report.billsChanged == 15, "the changed bills were read again, changed")
                #expect(try await db.introducedEvents().values.reduce(0, +) == bills)
                let again = try await db.importer(feed, perPage: 10).run()
                #expect(again.billsNew == 0 && again.billsChanged == 0)
            }
        }
    }

    @Test("bills sharing one update time over several pages: one changing as the import reads them loses none")
    func feedChangesInRunOfOneTime() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                let state = "ocd-jurisdiction/country:us/state:ca/government"
                try await db.importer(feed, perPage: 10).run()
                // 25 of the state's bills change at one time: two and a half pages of bills that
                // share an update time, read after the bills at the cursor's time.
                let touched = try await feed.control("touch", ["jurisdiction": state, "count": 25])
                #expect((touched["touched"] as? [Any])?.count == 25)
                // Right after the first page from that time, its first 3 bills change again: they
                // move to the end, and the 3 bills behind the first page slip onto it.
                try await feed.control(
                    "faults", ["changes": [["jurisdiction": state, "nth": 2, "touch_served": 3]]])
                let report = try await db.importer(feed, perPage: 10).run()
                let amended =
                    "SELECT count(*) FROM civic.bills WHERE jurisdiction_id = '\(state)' AND title LIKE '%[amended%'"
                #expect(try await db.count(amended) == 25, "every changed bill was read again")
                #expect(report.billsNew == 0)
                #expect(report.billsChanged >= 28, "25 changed, 3 of them twice")
                let again = try await db.importer(feed, perPage: 10).run()
                #expect(again.billsNew == 0 && again.billsChanged == 0)
            }
        }
    }

    @Test("429s are waited out (Retry-After) and failed pages tried again; the import completes")
    func throttlingAndRetries() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                try await feed.control(
                    "faults",
                    [
                        "throttle_every": 4, "retry_after": 2,
                        "fail": [["path": "bills", "nth": 2, "times": 2, "kind": "500"]],
                    ])
                let sleeps = Waits()
                let report = try await db.importer(feed, sleeps: sleeps).run()
                let stats = try await feed.stats()
                #expect(report.billsNew == stats["bills"] as? Int)
                #expect(report.throttled > 0 && report.retries == 2)
                let waits = sleeps.list.withLock { $0 }
                #expect(waits.filter { $0 == .seconds(2) }.count == report.throttled)
                #expect(waits.count == report.throttled + report.retries)
                let served = stats["stats"] as? [String: Int] ?? [:]
                #expect((served["/bills 429"] ?? 0) + (served["/people 429"] ?? 0) + (served["/events 429"] ?? 0)
                    == report.throttled)
            }
        }
    }

    @Test("a page that keeps failing fails the run without half-applying it; the next run finishes the import")
    func partialFailure() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                // California's bills: the third page asked for answers a broken body every time.
                let state = "ocd-jurisdiction/country:us/state:ca/government"
                try await feed.control(
                    "faults", ["fail": [["path": "bills", "jurisdiction": state, "nth": 3, "times": 100, "kind": "garbage"]]])
                let importer = db.importer(feed, perPage: 25, sleeps: Waits())
                await #expect(throws: ServiceError.self) { try await importer.run() }
                // The local and county bills (16 each, one page) and California's first two pages are
                // stored (the second starts where the first ended, so together they hold 26 to 50
                // bills); nothing of the third.
                let stored = try await db.count("SELECT count(*) FROM civic.bills WHERE jurisdiction_id = '\(state)'")
                #expect((26...50).contains(stored))
                let before = try await db.count("SELECT count(*) FROM civic.bills")
                #expect(try await db.introducedEvents().count == before)
                #expect(try await db.count("SELECT count(*) FROM civic.import_runs WHERE error IS NOT NULL") == 1)
                // California's cursor stands at the newest bill stored: the next run goes on from there.
                #expect(
                    try await db.count(
                        """
                        SELECT count(*) FROM civic.import_cursors c WHERE c.jurisdiction_id = '\(state)'
                            AND c.updated_since = (SELECT max(source_updated_at) FROM civic.bills WHERE jurisdiction_id = '\(state)')
                        """) == 1)
                try await feed.control("faults", [:])
                let report = try await importer.run()
                let stats = try await feed.stats()
                #expect(try await db.count("SELECT count(*) FROM civic.bills") == stats["bills"] as? Int)
                #expect(report.billsNew == (stats["bills"] as? Int ?? 0) - before)
                let events = try await db.introducedEvents()
                #expect(events.count == stats["bills"] as? Int && events.values.allSatisfy { $0 == 1 })
            }
        }
    }

    @Test("the API key goes in X-API-KEY; without the right one the feed refuses and the run fails")
    func apiKey() async throws {
        try await StandinFeed.with(apiKey: "k-123") { feed in
            try await CivicDatabase.with { db in
                await #expect(throws: ServiceError.self) {
                    try await db.importer(feed, sleeps: Waits(), apiKey: "wrong").run()
                }
                let report = try await db.importer(feed, apiKey: "k-123").run()
                #expect(report.billsNew > 0)
            }
        }
    }

    @Test("the schedule queues one import per slot across replicas and runs it once")
    func schedule() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                let queue = JobQueue(client: db.client, schema: "civic", clock: db.clock, logger: CivicDatabase.logger)
                let schedulers = (0..<2).map { _ in
                    ImportScheduler(
                        queue: queue, importer: db.importer(feed), intervalSeconds: 3600, pollInterval: .seconds(60),
                        logger: CivicDatabase.logger)
                }
                let ran = try await withThrowingTaskGroup(of: Int.self) { group in
                    for scheduler in schedulers { group.addTask { try await scheduler.round() } }
                    return try await group.reduce(0, +)
                }
                #expect(ran == 1)
                #expect(try await schedulers[0].round() == 0)
                #expect(try await db.count("SELECT count(*) FROM civic.jobs WHERE state = 'done'") == 1)
                #expect(try await db.count("SELECT count(*) FROM civic.import_runs WHERE finished_at IS NOT NULL") == 1)
                db.clock.advance(by: 3600)
                #expect(try await schedulers[1].round() == 1)
                #expect(try await db.count("SELECT count(*) FROM civic.jobs WHERE state = 'done'") == 2)
            }
        }
    }
}
