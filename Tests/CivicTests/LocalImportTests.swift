import CivicContract
import CivicService
import Contract
import Foundation
import PostgresNIO
import ServiceKit
import Store
import Testing

/// The local JSON format (`politimap-local/1`) for a body without an API, against PostgreSQL.
@Suite("civic: the local JSON format (PostgreSQL)", .serialized)
struct LocalImportTests {
    static let council = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"

    static func file(title: String = "Adopt the 2027 downtown parking rates") -> Civic.LocalFile {
        .init(
            jurisdiction: .init(id: council, name: "San Luis Obispo"), body: "San Luis Obispo City Council",
            items: [
                .init(
                    id: "2026-12-02-item-7", session: "2026", identifier: "Item 7", title: title,
                    summary: "Sets hourly rates for the downtown structures.", subjects: ["Transportation"],
                    updatedAt: "2026-11-20T17:00:00-08:00",
                    actions: [
                        .init(date: "2026-11-18", description: "Introduced", classification: ["introduction"]),
                        .init(date: "2026-12-02", description: "Adopted", classification: ["adoption"]),
                    ],
                    sponsors: ["Public Works"],
                    documents: [.init(url: "https://example.org/item7.pdf", note: "Staff report", date: "2026-11-20")],
                    sources: ["https://example.org/agenda"]),
                .init(
                    id: "2026-12-02-item-8", session: "2026", identifier: "Item 8", title: "Street tree plan",
                    updatedAt: "2026-11-20T17:00:00Z"),
                .init(
                    id: "2026-12-02-item-9", session: "2026", identifier: "Item 9", title: "Housing element report",
                    subjects: ["Housing"], updatedAt: "2026-11-20T17:00:00Z",
                    actions: [.init(date: "2026-11-18", description: "Referred", classification: ["referral-committee"])]),
            ],
            meetings: [
                .init(
                    id: "cc-2026-12-02", name: "Regular meeting", startsAt: "2026-12-02T18:00:00-08:00",
                    endsAt: "2026-12-02T21:00:00-08:00", location: "Council Chamber, 990 Palm Street",
                    agenda: [
                        .init(order: 1, description: "Parking rates", items: ["2026-12-02-item-7"]),
                        .init(order: 2, description: "Public comment"),
                    ],
                    documents: [.init(url: "https://example.org/agenda.pdf", note: "Agenda")],
                    sources: ["https://example.org/meetings"])
            ])
    }

    @Test("a file is imported whole, again changes nothing, a changed item records what changed; a new item is announced")
    func importsIdempotently() async throws {
        try await CivicDatabase.with { db in
            let local = db.localImporter()
            let first = try await local.apply(Self.file())
            #expect(first == .init(billsNew: 3, billsChanged: 0, billsUnchanged: 0, meetings: 1))
            #expect(try await db.introducedEvents().count == 3)
            #expect(
                try await db.count(
                    "SELECT count(*) FROM civic.bills WHERE source_id LIKE 'local:\(Self.council):%' AND level = 'local'") == 3)
            #expect(try await db.count("SELECT count(*) FROM civic.bills WHERE status = 'enacted'") == 1)
            #expect(try await db.count("SELECT count(*) FROM civic.bills WHERE status = 'in_committee'") == 1)
            // The same file again: nothing.
            let again = try await local.apply(Self.file())
            #expect(again == .init(billsNew: 0, billsChanged: 0, billsUnchanged: 3, meetings: 0))
            #expect(try await db.introducedEvents().values.reduce(0, +) == 3)
            // A changed title: one change, named.
            let changed = try await local.apply(Self.file(title: "Adopt the 2027 downtown parking rates (amended)"))
            #expect(changed.billsChanged == 1 && changed.billsNew == 0)
            #expect(try await db.count("SELECT count(*) FROM civic.bill_changes WHERE fields = ARRAY['title']") == 1)
            // The meeting's agenda links the item's bill id, readable through list_meetings.
            let meetings = try await db.call(
                Civic.ListMeetings.self,
                .init(jurisdiction: Self.council, from: "2026-12-01T00:00:00Z", to: "2026-12-04T00:00:00Z", page: .init()))
            let bills = try await db.call(Civic.ListBills.self, .init(jurisdiction: Self.council, q: "parking", page: .init()))
            let billId = try #require(bills.items.first?.id)
            #expect(meetings.items.count == 1 && meetings.items.first?.agenda.first?.billIds == [billId])
            #expect(meetings.items.first?.body == "San Luis Obispo City Council")
        }
    }

    @Test("a refused file names the field and applies nothing; only a civic_editor may import")
    func refusals() async throws {
        try await CivicDatabase.with { db in
            let local = db.localImporter()
            var cases: [(Civic.LocalFile, String)] = []
            var file = Self.file()
            file.format = "politimap-local/9"
            cases.append((file, "format"))
            file = Self.file()
            file.jurisdiction.id = "San Luis Obispo"
            cases.append((file, "jurisdiction.id"))
            file = Self.file()
            file.items![1].updatedAt = "last tuesday"
            cases.append((file, "items[1].updatedAt"))
            file = Self.file()
            file.items![0].actions![1].date = "2026-13-45"
            cases.append((file, "items[0].actions[1].date"))
            file = Self.file()
            file.items![0].documents![0].url = "ftp://example.org/x"
            cases.append((file, "items[0].documents[0].url"))
            file = Self.file()
            file.items![2].id = file.items![0].id
            cases.append((file, "items[2].id"))
            file = Self.file()
            file.items![2].title = "  "
            cases.append((file, "items[2].title"))
            file = Self.file()
            file.meetings![0].startsAt = "2026-12-02"
            cases.append((file, "meetings[0].startsAt"))
            file = Self.file()
            file.meetings![0].status = "postponed-ish"
            cases.append((file, "meetings[0].status"))
            for (file, field) in cases {
                do {
                    _ = try await local.apply(file)
                    Issue.record("\(field): accepted")
                } catch let error as ServiceError {
                    #expect(error.code == .invalidArgument && error.field == field, "\(field): \(error)")
                }
            }
            #expect(try await db.count("SELECT count(*) FROM civic.bills") == 0)
            #expect(try await db.count("SELECT count(*) FROM civic.meetings") == 0)
            // A missing field of the wire format is named too.
            let decoded = Result { () throws(ServiceError) in
                try Wire.decodePayload(Civic.LocalFile.self, from: Array(#"{"format":"politimap-local/1"}"#.utf8))
            }
            if case .failure(let error) = decoded { #expect(error.field == "jurisdiction") } else { Issue.record("decoded") }
            // The operation is for editors.
            var router = OperationRouter(service: .civic, logger: CivicDatabase.logger, clock: db.clock)
            let handler = LocalImportHandler(importer: local)
            router.register(Civic.ImportLocal.self) { try await handler.apply($0, $1) }
            let request = try Wire.encodeRequest(
                operation: Civic.ImportLocal.name,
                metadata: RequestMetadata(requestId: "t", actor: Actor(userId: UUID().uuidString, roles: ["user"])),
                payload: Self.file())
            let refused = await router.handle(request)
            let denied = #expect(throws: ServiceError.self) {
                try Wire.decodeReply(Civic.ImportLocal.Reply.self, from: refused)
            }
            #expect(denied?.code == .permissionDenied)
            let editor = try Wire.encodeRequest(
                operation: Civic.ImportLocal.name,
                metadata: RequestMetadata(
                    requestId: "t", actor: Actor(userId: UUID().uuidString, roles: ["user", "civic_editor"])),
                payload: Self.file())
            let reply = try Wire.decodeReply(Civic.ImportLocal.Reply.self, from: await router.handle(editor))
            #expect(reply.billsNew == 3)
        }
    }
}
