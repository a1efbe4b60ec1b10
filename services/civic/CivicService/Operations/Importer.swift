import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import Store

/// One import run: for each jurisdiction, its people, then its bills changed since the last
/// finished run, then its events, page by page. Each page is read first (no transaction open
/// while the feed is asked) and then applied in one transaction, with a `civic.bill_introduced`
/// event for each bill civic had not seen; a page that cannot be read is tried again and never
/// half-applied. A run that stops half-way leaves the cursor where it was, so the next run reads
/// those pages again and the upserts (keyed by feed ids) change nothing twice.
public struct Importer: Sendable {
    let client: PostgresClient
    let feed: FeedClient
    let writer: ImportWriter
    let runs: ImportStore
    let events: EventPublisher
    let clock: any WallClock
    let logger: Logger

    public init(
        client: PostgresClient, feed: FeedClient, events: EventPublisher, clock: any WallClock, logger: Logger
    ) {
        self.client = client
        self.feed = feed
        self.writer = ImportWriter(logger: logger)
        self.runs = ImportStore(client: client, logger: logger)
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

    func bills(of jurisdiction: String, _ report: inout ImportReport) async throws {
        let since = try await runs.cursor(jurisdiction, "bills")
        var query = [("jurisdiction", jurisdiction), ("sort", "updated_asc")] + Self.billIncludes.map { ("include", $0) }
        if let since { query.append(("updated_since", FeedDate.text(since))) }
        var newest = since
        try await pages("bills", query: query, as: OpenStates.Bill.self, &report) { items in
            let records = try items.map { (bill) throws(ServiceError) in try BillRecord(bill) }
            newest = ([newest].compactMap { $0 } + records.map(\.sourceUpdatedAt)).max()
            return records
        } apply: { records, connection, now, report in
            for jurisdiction in Self.jurisdictions(records.map(\.jurisdiction)) {
                try await writer.jurisdiction(jurisdiction, now: now, on: connection)
            }
            var introduced: [(topic: String, payload: any Encodable)] = []
            for record in records {
                switch try await writer.bill(record, now: now, on: connection) {
                case .new(let id):
                    report.billsNew += 1
                    introduced.append(
                        (
                            Civic.BillIntroduced.topic,
                            Civic.BillIntroduced(
                                billId: id.uuidString.lowercased(), jurisdictionId: record.jurisdiction.id,
                                level: record.jurisdiction.level, identifier: record.identifier, title: record.title,
                                subjects: record.subjects)
                        ))
                case .changed: report.billsChanged += 1
                case .unchanged: report.billsUnchanged += 1
                }
            }
            guard !introduced.isEmpty else { return [] }
            return try await events.append(introduced, requestId: nil, on: connection, logger: logger)
        }
        if let newest { try await runs.advance(jurisdiction, "bills", to: newest) }
    }

    func people(of jurisdiction: String, _ report: inout ImportReport) async throws {
        let query = [("jurisdiction", jurisdiction), ("include", "offices"), ("include", "sources")]
        try await pages("people", query: query, as: OpenStates.Person.self, &report) { items in
            try items.map { (person) throws(ServiceError) in try PersonRecord(person) }
        } apply: { records, connection, now, report in
            for jurisdiction in Self.jurisdictions(records.map(\.jurisdiction)) {
                try await writer.jurisdiction(jurisdiction, now: now, on: connection)
            }
            for record in records where try await writer.person(record, on: connection) { report.people += 1 }
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
        } apply: { records, connection, now, report in
            for jurisdiction in Self.jurisdictions(records.map(\.jurisdiction)) {
                try await writer.jurisdiction(jurisdiction, now: now, on: connection)
            }
            for record in records where try await writer.meeting(record, on: connection) { report.meetings += 1 }
            return []
        }
    }

    /// Reads every page of `path` and applies each in its own transaction; events the
    /// transaction appended are announced after it commits.
    func pages<Item: Decodable & Sendable, Record: Sendable>(
        _ path: String, query: [(String, String)], as item: Item.Type, _ report: inout ImportReport,
        records: ([Item]) throws -> [Record],
        apply: (
            [Record], PostgresConnection, Date, inout ImportReport
        ) async throws -> [StoredEvent]
    ) async throws {
        var number = 1
        while true {
            var tries = FeedClient.Tries()
            let page = try await feed.page(path, query: query, page: number, as: item, tries: &tries)
            report.throttled += tries.throttled
            report.retries += tries.retries
            let batch = try records(page.results)
            let now = clock.now()
            let before = report
            let (appended, after) = try await client.transaction(logger: logger) { connection in
                var counted = before
                let appended = try await apply(batch, connection, now, &counted)
                return (appended, counted)
            }
            report = after
            report.pages += 1
            for event in appended { events.announce(event) }
            guard number < page.pagination.maxPage else { return }
            number += 1
        }
    }

    static func jurisdictions(_ all: [Civic.Jurisdiction]) -> [Civic.Jurisdiction] {
        var seen = Set<String>()
        return all.filter { seen.insert($0.id).inserted }
    }
}
