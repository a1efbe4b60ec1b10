import CivicContract
import Contract
import Foundation
import Logging
import ServiceKit
import Store

/// One import run: for each jurisdiction, its people, then its bills changed since the last
/// finished run, then its events, page by page. Each page is read first (no transaction open
/// while the feed is asked) and then applied in one transaction, with a `civic.bill_introduced`
/// event for each bill civic had not seen; a page that cannot be read is tried again and never
/// half-applied. Bills are read as a keyset (``bills(of:_:)``), so that bills changed or added
/// while a run pages through the feed make it skip none. The cursor moves on after each page of
/// bills applied; a run that stops half-way leaves it there, so the next run reads the rest (and
/// the bills of that page's last update time again: the upserts, keyed by feed ids, change
/// nothing twice).
public struct Importer: Sendable {
    let transactions: Transactions
    let feed: FeedClient
    let imported: ImportedRecordStore
    let runs: ImportStore
    let events: EventPublisher
    let clock: any WallClock
    let logger: Logger

    public init(
        transactions: Transactions, runs: ImportStore, imported: ImportedRecordStore, feed: FeedClient,
        events: EventPublisher, clock: any WallClock, logger: Logger
    ) {
        self.transactions = transactions
        self.feed = feed
        self.imported = imported
        self.runs = runs
        self.events = events
        self.clock = clock
        self.logger = logger
    }

    /// Runs one import of every configured jurisdiction.
    @discardableResult
    public func run() async throws -> ImportReport {
        let run = UUID()
        try await runs.started(run, at: clock.now())
        var report = ImportReport()
        do {
            for jurisdiction in feed.settings.jurisdictions {
                try await people(of: jurisdiction, &report)
                try await bills(of: jurisdiction, &report)
                try await meetings(of: jurisdiction, &report)
            }
        } catch {
            try? await runs.finished(run, at: clock.now(), report, error: SafeErrorDescription.of(error))
            throw error
        }
        try await runs.finished(run, at: clock.now(), report, error: nil)
        logger.info(
            "import finished",
            metadata: [
                "pages": "\(report.pages)", "billsNew": "\(report.billsNew)", "billsChanged": "\(report.billsChanged)",
                "people": "\(report.people)", "meetings": "\(report.meetings)", "throttled": "\(report.throttled)",
                "retries": "\(report.retries)",
            ])
        return report
    }

    static let billIncludes = ["abstracts", "actions", "sponsorships", "votes", "versions", "documents", "sources"]

    /// The bills of `jurisdiction` updated since its cursor, oldest update first.
    ///
    /// Page numbers alone would skip bills: a bill changed (or added) while the run pages moves to
    /// the end of the order, and every bill after its old place moves one place up, so one of
    /// them slips onto a page already read, and the cursor then passes its update time for good.
    /// So after each page the next query starts again at page 1, from that page's last update
    /// time (`updated_since` is inclusive): the order behind that point can only grow at its end.
    /// Bills already applied at exactly that time are left out; only when a whole page shares one
    /// update time does the run go on to the next page of the same query.
    ///
    /// Paging on through such a run of bills of one update time has the weakness of page numbers:
    /// a bill of the run that changes moves to the end, and one behind it slips onto a page already
    /// read. So when the run has spanned more than one page, it is read once more from its first
    /// page, leaving out the bills already applied, before the cursor passes its time; a pass that
    /// found a bill the first missed is followed by another (``maxRunRereads`` at most).
    func bills(of jurisdiction: String, _ report: inout ImportReport) async throws {
        let base = [("jurisdiction", jurisdiction), ("sort", "updated_asc")] + Self.billIncludes.map { ("include", $0) }
        var since = try await runs.cursor(jurisdiction, "bills")
        // Feed ids of the bills this run applied whose update time is `since`.
        var readAtSince = Set<String>()
        var number = 1
        // Passes over the run of bills at `since` so far, and how many of its bills the last pass
        // started with.
        var rereads = 0
        var knownAtPassStart = 0
        while true {
            var query = base
            if let since { query.append(("updated_since", FeedDate.text(since))) }
            var read: [BillRecord] = []
            let maxPage = try await page(number, of: "bills", query: query, as: OpenStates.Bill.self, &report) { items in
                read = try items.map { (bill) throws(ServiceError) in try BillRecord(bill) }
                return read.filter { !($0.sourceUpdatedAt == since && readAtSince.contains($0.sourceId)) }
            } apply: { records, tx, now, report in
                try await applyBills(records, in: tx, now: now, &report)
            }
            guard let last = read.map(\.sourceUpdatedAt).max() else { return }
            if since.map({ last > $0 }) ?? true {
                readAtSince.formUnion(read.filter { $0.sourceUpdatedAt == since }.map(\.sourceId))
                // The run of bills at `since` spanned pages, and this is its first pass or the last
                // one found bills the one before missed: read it again from its start.
                if number > 1 && (rereads == 0 || readAtSince.count > knownAtPassStart) {
                    if rereads < Self.maxRunRereads {
                        rereads += 1
                        knownAtPassStart = readAtSince.count
                        number = 1
                        continue
                    }
                    logger.warning(
                        "bills kept changing while the import read bills that share one update time; one may be missed until it changes again",
                        metadata: ["jurisdiction": "\(jurisdiction)", "passes": "\(rereads + 1)"])
                }
                try await runs.advance(jurisdiction, "bills", to: last)
                since = last
                readAtSince = Set(read.filter { $0.sourceUpdatedAt == last }.map(\.sourceId))
                rereads = 0
                knownAtPassStart = 0
                guard number < maxPage else { return }
                number = 1
            } else {
                readAtSince.formUnion(read.map(\.sourceId))
                guard number < maxPage else { return }
                number += 1
            }
        }
    }

    /// How many times the run of bills at one update time is read again (see ``bills(of:_:)``).
    static let maxRunRereads = 3

    /// Stores one page of bills, with a `civic.bill_introduced` event for each new one.
    private func applyBills(
        _ bills: [BillRecord], in tx: Transaction, now: Date, _ report: inout ImportReport
    ) async throws -> [StoredEvent] {
        for jurisdiction in Self.jurisdictions(bills.map(\.jurisdiction)) {
            try await imported.jurisdiction(jurisdiction, now: now, in: tx)
        }
        let written = try await imported.bills(bills, now: now, in: tx)
        report.billsNew += written.new
        report.billsChanged += written.changed
        report.billsUnchanged += written.unchanged
        guard !written.introduced.isEmpty else { return [] }
        return try await events.append(written.introduced, requestId: nil, in: tx)
    }

    func people(of jurisdiction: String, _ report: inout ImportReport) async throws {
        let query = [("jurisdiction", jurisdiction), ("include", "offices"), ("include", "sources")]
        try await pages("people", query: query, as: OpenStates.Person.self, &report) { items in
            try items.map { (person) throws(ServiceError) in try PersonRecord(person) }
        } apply: { people, tx, now, report in
            for jurisdiction in Self.jurisdictions(people.map(\.jurisdiction)) {
                try await imported.jurisdiction(jurisdiction, now: now, in: tx)
            }
            for person in people where try await imported.person(person, in: tx) { report.people += 1 }
            return []
        }
    }

    func meetings(of jurisdiction: String, _ report: inout ImportReport) async throws {
        let query = [
            ("jurisdiction", jurisdiction), ("include", "agenda"), ("include", "participants"),
            ("include", "documents"), ("include", "sources"),
        ]
        try await pages("events", query: query, as: OpenStates.Event.self, &report) { items in
            try items.map { (event) throws(ServiceError) in try MeetingRecord(event) }
        } apply: { meetings, tx, now, report in
            for jurisdiction in Self.jurisdictions(meetings.map(\.jurisdiction)) {
                try await imported.jurisdiction(jurisdiction, now: now, in: tx)
            }
            for meeting in meetings where try await imported.meeting(meeting, in: tx) { report.meetings += 1 }
            return []
        }
    }

    /// Reads every page of `path` and applies each in its own transaction (``page(_:of:query:as:_:records:apply:)``).
    func pages<Item: Decodable & Sendable, Record: Sendable>(
        _ path: String, query: [(String, String)], as item: Item.Type, _ report: inout ImportReport,
        records: ([Item]) throws -> [Record],
        apply: ([Record], Transaction, Date, inout ImportReport) async throws -> [StoredEvent]
    ) async throws {
        var number = 1
        while true {
            let maxPage = try await page(number, of: path, query: query, as: item, &report, records: records, apply: apply)
            guard number < maxPage else { return }
            number += 1
        }
    }

    /// Reads page `number` of `path` and applies it in its own transaction; events the
    /// transaction appended are announced after it commits. Returns the query's number of pages.
    func page<Item: Decodable & Sendable, Record: Sendable>(
        _ number: Int, of path: String, query: [(String, String)], as item: Item.Type, _ report: inout ImportReport,
        records: ([Item]) throws -> [Record],
        apply: ([Record], Transaction, Date, inout ImportReport) async throws -> [StoredEvent]
    ) async throws -> Int {
        var tries = FeedClient.Tries()
        let page = try await feed.page(path, query: query, page: number, as: item, tries: &tries)
        report.throttled += tries.throttled
        report.retries += tries.retries
        let batch = try records(page.results)
        let now = clock.now()
        let before = report
        let (appended, after) = try await transactions.run { tx in
            var counted = before
            let appended = try await apply(batch, tx, now, &counted)
            return (appended, counted)
        }
        report = after
        report.pages += 1
        for event in appended { events.announce(event) }
        return page.pagination.maxPage
    }

    static func jurisdictions(_ all: [Civic.Jurisdiction]) -> [Civic.Jurisdiction] {
        var seen = Set<String>()
        return all.filter { seen.insert($0.id).inserted }
    }
}
