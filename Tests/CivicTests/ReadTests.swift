import CivicContract
import CivicService
import Contract
import Foundation
import PostgresNIO
import Testing

/// Imports the stand-in's fixture once per test into a fresh schema, then reads through the operations.
func withImported(_ body: @Sendable (CivicDatabase, StandinFeed) async throws -> Void) async throws {
    try await StandinFeed.with { feed in
        try await CivicDatabase.with { db in
            try await db.importer(feed, perPage: 100).run()
            try await body(db, feed)
        }
    }
}

@Suite("civic: bills, people, meetings and bookmarks through the operations (PostgreSQL)", .serialized)
struct ReadTests {
    @Test("bill lists page by keyset without repeats or gaps, filtered by level, newest activity first")
    func billPages() async throws {
        try await withImported { db, _ in
            let total = try await db.count("SELECT count(*) FROM civic.bills WHERE level = 'state'")
            var seen: [Civic.BillSummary] = []
            var cursor: String?
            repeat {
                let page = try await db.call(
                    Civic.ListBills.self, .init(level: "state", page: .init(cursor: cursor, limit: 37)))
                #expect(page.items.count <= 37)
                seen += page.items
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == total && Set(seen.map(\.id)).count == total)
            #expect(seen.allSatisfy { $0.jurisdiction.level == .state })
            let days = seen.compactMap(\.latestActionOn)
            #expect(days == days.sorted(by: >))
            let first = try await db.call(Civic.ListBills.self, .init())
            #expect(first.items.count == Civic.ListBills.pageSize.defaultLimit && first.nextCursor != nil)
        }
    }

    @Test("search finds words in identifier, title and summary, and tolerates a misspelt word")
    func search() async throws {
        try await withImported { db, _ in
            let exact = try await db.call(Civic.ListBills.self, .init(q: "groundwater", page: .init(limit: 100)))
            #expect(!exact.items.isEmpty)
            #expect(exact.items.allSatisfy { "\($0.title) \($0.summary ?? "")".lowercased().contains("groundwater") })
            let typo = try await db.call(Civic.ListBills.self, .init(q: "grondwater", page: .init(limit: 100)))
            #expect(Set(typo.items.map(\.id)).isSuperset(of: exact.items.map(\.id)))
            let federal = try #require(try await db.call(Civic.ListBills.self, .init(level: "federal")).items.first)
            let byNumber = try await db.call(
                Civic.ListBills.self, .init(level: "federal", q: federal.identifier, page: .init(limit: 100)))
            #expect(byNumber.items.contains { $0.id == federal.id })
            let nothing = try await db.call(Civic.ListBills.self, .init(q: "xylophonequartet"))
            #expect(nothing.items.isEmpty)
        }
    }

    @Test("filters by status, subject, topic (data) and updatedSince; bad values are 400s naming the field")
    func filters() async throws {
        try await withImported { db, _ in
            let enacted = try await db.call(Civic.ListBills.self, .init(status: "enacted", page: .init(limit: 100)))
            #expect(!enacted.items.isEmpty && enacted.items.allSatisfy { $0.status == .enacted })
            let visas = try await db.call(Civic.ListBills.self, .init(subject: "Visas", page: .init(limit: 100)))
            #expect(!visas.items.isEmpty && visas.items.allSatisfy { $0.subjects.contains("Visas") })
            let topics = try await db.call(Civic.ListTopics.self, Empty())
            let students = try #require(topics.items.first { $0.id == "international_students" })
            let topical = try await db.call(
                Civic.ListBills.self, .init(topic: "international_students", page: .init(limit: 100)))
            #expect(!topical.items.isEmpty)
            #expect(topical.items.allSatisfy { !Set($0.subjects).isDisjoint(with: students.subjects) })
            let later = try await db.call(
                Civic.ListBills.self, .init(updatedSince: "2026-10-01T00:00:00Z", page: .init(limit: 100)))
            #expect(later.items.allSatisfy { $0.updatedAt >= "2026-10-01T00:00:00Z" })
            for (request, field) in [
                (Civic.ListBills.Request(level: "city"), "level"), (.init(status: "pending"), "status"),
                (.init(sort: "alphabetical"), "sort"), (.init(topic: "nope"), "topic"),
                (.init(updatedSince: "yesterday"), "updatedSince"), (.init(q: "!!!"), "q"),
                (.init(q: String(repeating: "a", count: 201)), "q"), (.init(page: .init(limit: 101)), "limit"),
                (.init(page: .init(cursor: "abc")), "cursor"),
            ] {
                let error = await db.error(Civic.ListBills.self, request)
                #expect(error?.code == .invalidArgument && error?.field == field, "\(field)")
            }
        }
    }

    @Test("a bill's detail: timeline, sponsors and voters linked to people, versions and sources")
    func billDetail() async throws {
        try await withImported { db, _ in
            let voted = try await db.call(Civic.ListBills.self, .init(level: "state", status: "enacted"))
            let summary = try #require(voted.items.first)
            let bill = try await db.call(Civic.GetBill.self, .init(id: summary.id))
            #expect(bill.summary == summary)
            #expect(bill.actions.first?.classification == ["introduction"])
            #expect(bill.actions.last?.classification == ["executive-signature"])
            #expect(bill.sponsors.count == 1 && bill.sponsors[0].personId != nil)
            #expect(bill.votes.count == 2)
            for vote in bill.votes {
                #expect(vote.counts.values.reduce(0, +) == vote.votes.count)
                #expect(vote.votes.allSatisfy { $0.personId != nil })
            }
            #expect(bill.versions.first?.links.first?.url.hasSuffix(".pdf") == true)
            #expect(bill.sources.count == 1)
            #expect(await db.error(Civic.GetBill.self, .init(id: UUID().uuidString))?.code == .notFound)
            #expect(await db.error(Civic.GetBill.self, .init(id: "AB 12"))?.code == .notFound)
        }
    }

    @Test("a bill's detail is kept encoded while its version holds: a highlight, a jurisdiction's name or a person it links changes the reply")
    func billDetailKept() async throws {
        try await withImported { db, _ in
            let voted = try await db.call(Civic.ListBills.self, .init(level: "state", status: "enacted"))
            let id = try #require(voted.items.first?.id)
            let first = try await db.call(Civic.GetBill.self, .init(id: id))
            #expect(try await db.call(Civic.GetBill.self, .init(id: id)) == first)
            // A highlight writes the bill's row: a new version.
            _ = try await db.call(
                Civic.SetHighlight.self, .init(billId: id, highlighted: true), as: UUID(),
                roles: ["user", "civic_editor"])
            let highlighted = try await db.call(Civic.GetBill.self, .init(id: id))
            #expect(highlighted.highlighted && !first.highlighted)
            // The jurisdiction's row.
            try await db.execute(
                "UPDATE civic.jurisdictions SET name = name || ' (renamed)' WHERE id = '\(first.summary.jurisdiction.id)'")
            let renamed = try await db.call(Civic.GetBill.self, .init(id: id))
            #expect(renamed.summary.jurisdiction.name == first.summary.jurisdiction.name + " (renamed)")
            // A sponsor civic no longer knows by the feed's id: the link goes.
            let sponsor = try #require(first.sponsors.first?.personId)
            try await db.execute("UPDATE civic.people SET source_id = source_id || '-gone' WHERE id = '\(sponsor)'")
            let unlinked = try await db.call(Civic.GetBill.self, .init(id: id))
            #expect(unlinked.sponsors.first?.personId == nil)
            #expect(unlinked.actions == first.actions && unlinked.versions == first.versions)
        }
    }

    @Test("highlights: most recent activity per level, an editor's pick first; only editors pick")
    func highlights() async throws {
        try await withImported { db, _ in
            let before = try await db.call(Civic.HighlightedBills.self, .init())
            #expect(before.levels.map(\.level) == Civic.Level.allCases)
            #expect(before.levels.allSatisfy { $0.bills.count == Civic.HighlightedBills.perLevel })
            let old = try await db.call(Civic.ListBills.self, .init(level: "county", sort: "introduced"))
            let pick = try #require(old.items.last)
            let editor = UUID()
            #expect(
                await db.error(Civic.SetHighlight.self, .init(billId: pick.id, highlighted: true), as: editor)?.code
                    == .permissionDenied)
            _ = try await db.call(
                Civic.SetHighlight.self, .init(billId: pick.id, highlighted: true), as: editor,
                roles: ["user", "civic_editor"])
            let after = try await db.call(Civic.HighlightedBills.self, .init(level: "county"))
            #expect(after.levels.count == 1 && after.levels[0].bills.first?.id == pick.id)
            #expect(try await db.call(Civic.GetBill.self, .init(id: pick.id)).highlighted)
        }
    }

    @Test(
        "people by jurisdiction, district and chamber, each fact sourced; positions are votes on active bills or unavailable"
    )
    func people() async throws {
        try await withImported { db, _ in
            let state = "ocd-jurisdiction/country:us/state:ca/government"
            var all: [Civic.PersonSummary] = []
            var cursor: String?
            repeat {
                let page = try await db.call(
                    Civic.ListPeople.self, .init(jurisdiction: state, page: .init(cursor: cursor, limit: 33)))
                all += page.items
                cursor = page.nextCursor
            } while cursor != nil
            #expect(all.count == 120 && Set(all.map(\.id)).count == 120)
            #expect(all.map(\.name) == all.map(\.name).sorted())
            let district = try await db.call(Civic.ListPeople.self, .init(jurisdiction: state, district: "35"))
            #expect(Set(district.items.map(\.office)) == ["Assemblymember", "Senator"])
            // The Assembly's and the Senate's district 35 are told apart by chamber.
            #expect(Set(district.items.map(\.chamber)) == [.lower, .upper])
            let assembly = try await db.call(
                Civic.ListPeople.self, .init(jurisdiction: state, district: "35", chamber: .lower))
            #expect(assembly.items.count == 1 && assembly.items[0].office == "Assemblymember")
            #expect(assembly.items[0].chamber == .lower)
            let senate = try await db.call(
                Civic.ListPeople.self, .init(jurisdiction: state, district: "35", chamber: .upper))
            #expect(senate.items.count == 1 && senate.items[0].office == "Senator" && senate.items[0].chamber == .upper)
            #expect(all.filter { $0.chamber == .lower }.count == 80 && all.filter { $0.chamber == .upper }.count == 40)
            let board = try await db.call(Civic.ListPeople.self, .init(chamber: .legislature, page: .init(limit: 200)))
            #expect(board.items.count == 10 && board.items.allSatisfy { $0.jurisdiction.level <= .county })
            // A chamber civic does not know does not decode: 400 naming it.
            let bad = try Wire.encodeRequest(
                operation: Civic.ListPeople.name, metadata: RequestMetadata(requestId: "test-chamber"),
                payloadJSON: Array(#"{"chamber": "senate", "page": {}}"#.utf8))
            let frames = await db.router.handle(bad)
            let refusal = try #require(throws: ServiceError.self) {
                try Wire.decodeReply(Civic.ListPeople.Reply.self, from: frames)
            }
            #expect(refusal.code == .invalidArgument && refusal.field == "chamber")
            let council = try await db.call(
                Civic.ListPeople.self,
                .init(jurisdiction: "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"))
            #expect(council.items.count == 5 && council.items.contains { $0.office == "Mayor" })
            var sawPositions = false
            var sawUnavailable = false
            for summary in all {
                let person = try await db.call(Civic.GetPerson.self, .init(id: summary.id))
                #expect(person.summary == summary)
                #expect(person.facts["name"]?.value == summary.name)
                #expect(person.facts.values.allSatisfy { $0.sourceUrl.hasPrefix("https://") && !$0.verifiedAt.isEmpty })
                #expect(person.positionsUnavailable == person.positions.isEmpty)
                #expect(person.positions.allSatisfy { $0.kind == "vote" })
                sawPositions = sawPositions || !person.positions.isEmpty
                sawUnavailable = sawUnavailable || person.positionsUnavailable
            }
            #expect(sawPositions && sawUnavailable)
        }
    }

    @Test("meetings in a range soonest first with agendas linked to bills; a body's next meeting from now")
    func meetings() async throws {
        try await withImported { db, _ in
            let city = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"
            let range = try await db.call(
                Civic.ListMeetings.self,
                .init(jurisdiction: city, from: "2026-10-01T00:00:00Z", to: "2027-01-01T00:00:00Z"))
            #expect(range.items.count == 7)
            #expect(range.items.map(\.startsAt) == range.items.map(\.startsAt).sorted())
            for meeting in range.items {
                #expect(meeting.body == "San Luis Obispo City Council")
                #expect(meeting.agenda.count == 3 && meeting.agenda.allSatisfy { $0.billIds.count == 1 })
            }
            let linked = try await db.call(Civic.GetBill.self, .init(id: range.items[0].agenda[0].billIds[0]))
            #expect(range.items[0].agenda[0].description.hasPrefix(linked.summary.identifier))
            // The clock is at 2026-11-24T12:00Z: the council's next meeting is on 2026-12-01.
            let next = try await db.call(Civic.NextMeeting.self, .init(body: "san luis obispo city council"))
            #expect(next.startsAt == "2026-12-01T17:00:00Z")
            #expect(await db.error(Civic.NextMeeting.self, .init(body: "Planning Commission"))?.code == .notFound)
            #expect(
                await db.error(Civic.ListMeetings.self, .init(from: "2026-12-01T00:00:00Z", to: "2026-11-01T00:00:00Z"))?
                    .field == "to")
            var pages = 0
            var cursor: String?
            var ids = Set<String>()
            repeat {
                let page = try await db.call(Civic.ListMeetings.self, .init(page: .init(cursor: cursor, limit: 5)))
                ids.formUnion(page.items.map(\.id))
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil
            #expect(ids.count == 34 && pages == 7)
        }
    }

    /// Rows that share one instant, with microseconds `microsecond` past 2026-11-24T12:00:00Z.
    /// A cursor's time made into a `Date` and bound again is stored one microsecond early for
    /// 17, 22 and 500017 (PostgresNIO truncates): the page after such a cursor then missed the
    /// instant's other rows (bills and bookmarks, newest first) or gave the same page again
    /// (meetings, soonest first). 0 is the whole second, which never drifted.
    @Test(
        "bills, meetings and bookmarks of one instant page through every row once, whatever its microseconds",
        arguments: [Int64(0), 17, 22, 500_017])
    func pagesAtOneInstant(microsecond: Int64) async throws {
        try await withImported { db, _ in
            let instant = "'epoch'::timestamptz + \(1_795_521_600_000_000 + microsecond) * interval '1 microsecond'"
            let user = UUID()
            for bill in try await db.call(Civic.ListBills.self, .init(page: .init(limit: 7))).items {
                _ = try await db.call(Civic.PutBookmark.self, .init(billId: bill.id), as: user)
            }
            try await db.execute("UPDATE civic.bills SET activity_at = \(instant)")
            try await db.execute("UPDATE civic.meetings SET starts_at = \(instant)")
            try await db.execute("UPDATE civic.bookmarks SET created_at = \(instant)")

            let billCount = try await db.count("SELECT count(*) FROM civic.bills")
            let bills = try await everyPage(most: billCount / 100 + 2) { cursor in
                let page = try await db.call(Civic.ListBills.self, .init(page: .init(cursor: cursor, limit: 100)))
                return (page.items.map(\.id), page.nextCursor)
            }
            #expect(billCount > 100 && bills.count == billCount && Set(bills).count == billCount)
            let meetings = try await everyPage(most: 34 / 5 + 2) { cursor in
                let page = try await db.call(Civic.ListMeetings.self, .init(page: .init(cursor: cursor, limit: 5)))
                return (page.items.map(\.id), page.nextCursor)
            }
            #expect(meetings.count == 34 && Set(meetings).count == 34)
            let bookmarks = try await everyPage(most: 7 / 2 + 2) { cursor in
                let page = try await db.call(Civic.ListBookmarks.self, .init(cursor: cursor, limit: 2), as: user)
                return (page.items.map(\.billId), page.nextCursor)
            }
            // One instant: newest first falls back on the bill's id, descending.
            #expect(bookmarks.count == 7 && Set(bookmarks).count == 7 && bookmarks == bookmarks.sorted(by: >))
        }
    }

    @Test("bookmarks are per account: put (201 then 200), get, list newest first, delete; unknown bills 404")
    func bookmarks() async throws {
        try await withImported { db, _ in
            let bills = try await db.call(Civic.ListBills.self, .init(page: .init(limit: 3))).items
            let (alice, bob) = (UUID(), UUID())
            let first = try await db.call(Civic.PutBookmark.self, .init(billId: bills[0].id), as: alice)
            #expect(first.created && first.body.bill == bills[0])
            db.clock.advance(by: 60)
            let again = try await db.call(Civic.PutBookmark.self, .init(billId: bills[0].id), as: alice)
            #expect(!again.created && again.body.createdAt == first.body.createdAt)
            _ = try await db.call(Civic.PutBookmark.self, .init(billId: bills[1].id), as: alice)
            _ = try await db.call(Civic.PutBookmark.self, .init(billId: bills[2].id), as: bob)
            let list = try await db.call(Civic.ListBookmarks.self, .init(limit: 1), as: alice)
            #expect(list.items.map(\.billId) == [bills[1].id] && list.nextCursor != nil)
            let rest = try await db.call(Civic.ListBookmarks.self, .init(cursor: list.nextCursor), as: alice)
            #expect(rest.items.map(\.billId) == [bills[0].id] && rest.nextCursor == nil)
            #expect(try await db.call(Civic.GetBookmark.self, .init(billId: bills[0].id), as: alice).billId == bills[0].id)
            #expect(await db.error(Civic.GetBookmark.self, .init(billId: bills[0].id), as: bob)?.code == .notFound)
            _ = try await db.call(Civic.DeleteBookmark.self, .init(billId: bills[0].id), as: alice)
            #expect(await db.error(Civic.DeleteBookmark.self, .init(billId: bills[0].id), as: alice)?.code == .notFound)
            #expect(await db.error(Civic.PutBookmark.self, .init(billId: UUID().uuidString), as: alice)?.code == .notFound)
            #expect(await db.error(Civic.ListBookmarks.self, .init(), as: nil)?.code == .unauthenticated)
        }
    }
}

/// The items of every page from the first until one without a next cursor, asking for at most
/// `most` pages (a cursor that gave the same page again would otherwise loop for ever).
private func everyPage(most: Int, _ page: (String?) async throws -> ([String], String?)) async throws -> [String] {
    var items: [String] = []
    var cursor: String?
    for _ in 0..<most {
        let (found, next) = try await page(cursor)
        items += found
        cursor = next
        if cursor == nil { return items }
    }
    Issue.record("still a next page after \(most) pages")
    return items
}
