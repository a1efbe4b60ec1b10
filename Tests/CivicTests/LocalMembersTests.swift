import CivicContract
import CivicService
import Contract
import Foundation
import ServiceKit
import Store
import Testing

/// A local body's members with their terms, roll calls on its items and stated positions: from a
/// local file and from an editor, against PostgreSQL through civic's operation table.
@Suite("civic: local members, votes and stated positions (PostgreSQL)", .serialized)
struct LocalMembersTests {
    static let council = LocalImportTests.council
    static let members = ["mayor", "member-1", "member-2", "member-3", "member-4"]

    /// ``LocalImportTests/file(title:)`` with the council's five members (a mayor of two-year terms,
    /// four members elected at large), a roll call on the adopted item 7 (everyone) and on item 9,
    /// in committee (all but member-4), and member-2's stated support of item 8.
    static func file() -> Civic.LocalFile {
        var file = LocalImportTests.file()
        file.sample = true
        file.members = members.map { id in
            let terms: [Civic.LocalTerm] =
                id == "mayor"
                ? [
                    .init(office: "Mayor", startDate: "2022-12-06", endDate: "2024-12-10"),
                    .init(office: "Mayor", startDate: "2024-12-10", endDate: "2026-12-08"),
                ] : [.init(office: "Council Member", startDate: "2024-12-10", endDate: "2028-12-12")]
            return .init(
                id: id, name: "Sample \(id)", email: "\(id)@example.org", terms: terms,
                sources: ["https://example.org/council/\(id)"], checkedOn: "2026-11-20")
        }
        file.items![0].votes = [
            .init(
                motion: "Adopt", date: "2026-12-02", result: "pass",
                votes: members.map { .init(member: $0, option: "yes") })
        ]
        file.items![2].votes = [
            .init(
                motion: "Refer to committee", date: "2026-11-18", result: "pass",
                votes: members.dropLast().map { .init(member: $0, option: $0 == "member-3" ? "no" : "yes") })
        ]
        file.positions = [
            .init(
                member: "member-2", item: "2026-12-02-item-8", position: "support", statedOn: "2026-11-19",
                sourceUrl: "https://example.org/newsletter", checkedOn: "2026-11-21")
        ]
        return file
    }

    static func importer(_ db: CivicDatabase) -> LocalImporter {
        db.localImporter()
    }

    /// The council's people by the name the file gave.
    static func people(_ db: CivicDatabase) async throws -> [String: Civic.PersonSummary] {
        let page = try await db.call(Civic.ListPeople.self, .init(jurisdiction: council))
        return Dictionary(uniqueKeysWithValues: page.items.map { ($0.name, $0) })
    }

    static func billId(_ db: CivicDatabase, _ q: String) async throws -> String {
        let bills = try await db.call(Civic.ListBills.self, .init(jurisdiction: council, q: q, page: .init()))
        return try #require(bills.items.first?.id)
    }

    @Test("a file's members, roll calls and stated positions: stored, shown by get_person and get_bill; again, unchanged")
    func imported() async throws {
        try await CivicDatabase.with { db in
            let local = Self.importer(db)
            let first = try await local.apply(Self.file())
            #expect(
                first == .init(billsNew: 3, billsChanged: 0, billsUnchanged: 0, meetings: 1, members: 5, positions: 1))
            let people = try await Self.people(db)
            #expect(people.keys.sorted() == Self.members.map { "Sample \($0)" })
            let mayor = try #require(people["Sample mayor"])
            #expect(mayor.office == "Mayor" && mayor.district == nil && mayor.chamber == .legislature)
            #expect(people["Sample member-1"]?.office == "Council Member")

            let mayorDetail = try await db.call(Civic.GetPerson.self, .init(id: mayor.id))
            #expect(mayorDetail.terms?.map(\.startDate) == ["2022-12-06", "2024-12-10"])
            #expect(mayorDetail.terms?.last == .init(office: "Mayor", startDate: "2024-12-10", endDate: "2026-12-08"))
            #expect(mayorDetail.sample == true)
            #expect(mayorDetail.facts["email"]?.sourceUrl == "https://example.org/council/mayor")
            #expect(mayorDetail.facts["email"]?.verifiedAt.hasPrefix("2026-11-20") == true)
            // The vote on item 9 (in committee: active); the adopted item 7 is no longer active.
            #expect(mayorDetail.positions.map { [$0.kind, $0.billIdentifier, $0.position] } == [["vote", "Item 9", "yes"]])
            #expect(!mayorDetail.positionsUnavailable)

            let member3 = try await db.call(Civic.GetPerson.self, .init(id: try #require(people["Sample member-3"]).id))
            #expect(member3.positions.map(\.position) == ["no"])
            let member2 = try await db.call(Civic.GetPerson.self, .init(id: try #require(people["Sample member-2"]).id))
            let stated = try #require(member2.positions.first { $0.kind == "stated" })
            #expect(
                stated
                    == .init(
                        billId: try await Self.billId(db, "tree"), billIdentifier: "Item 8", billTitle: "Street tree plan",
                        kind: "stated", position: "support", date: "2026-11-19",
                        sourceUrl: "https://example.org/newsletter", checkedOn: "2026-11-21"))
            #expect(member2.positions.count == 2, "the stated position and the vote on item 9")
            // member-4 voted only on the adopted item: no position available.
            let member4 = try await db.call(Civic.GetPerson.self, .init(id: try #require(people["Sample member-4"]).id))
            #expect(member4.positions.isEmpty && member4.positionsUnavailable)

            // The bill's roll call links each member to their person.
            let adopted = try await db.call(Civic.GetBill.self, .init(id: try await Self.billId(db, "parking")))
            let rollCall = try #require(adopted.votes.first)
            #expect(rollCall.votes.count == 5 && rollCall.votes.allSatisfy { $0.option == "yes" })
            #expect(Set(rollCall.votes.compactMap(\.personId)) == Set(people.values.map(\.id)))

            let again = try await local.apply(Self.file())
            #expect(
                again == .init(billsNew: 0, billsChanged: 0, billsUnchanged: 3, meetings: 0, members: 0, positions: 0))
            // A new term is a change of the member.
            var file = Self.file()
            file.members![1].terms.append(.init(office: "Vice Mayor", startDate: "2026-12-08"))
            let changed = try await local.apply(file)
            #expect(changed.members == 1)
            #expect(try await Self.people(db)["Sample member-1"]?.office == "Vice Mayor")
            #expect(try await db.count("SELECT count(*) FROM civic.people WHERE sample") == 5)
        }
    }

    @Test("an editor enters, corrects and removes a stated position; refusals name the field; only a civic_editor")
    func editor() async throws {
        try await CivicDatabase.with { db in
            _ = try await Self.importer(db).apply(Self.file())
            let person = try #require(try await Self.people(db)["Sample member-4"]).id
            let bill = try await Self.billId(db, "housing")
            let editor = UUID()
            func request(
                position: String = "oppose", statedOn: String = "2026-11-20", sourceUrl: String = "https://example.org/op-ed",
                checkedOn: String = "2026-11-23", person other: String? = nil, bill otherBill: String? = nil
            ) -> Civic.SetStatedPosition.Request {
                .init(
                    personId: other ?? person, billId: otherBill ?? bill, position: position, statedOn: statedOn,
                    sourceUrl: sourceUrl, checkedOn: checkedOn)
            }
            #expect(await db.error(Civic.SetStatedPosition.self, request(), as: UUID())?.code == .permissionDenied)
            #expect(await db.error(Civic.SetStatedPosition.self, request())?.code == .unauthenticated)
            let first = try await db.call(Civic.SetStatedPosition.self, request(), as: editor, roles: ["civic_editor"])
            #expect(first.created && first.position.kind == "stated" && first.position.billIdentifier == "Item 9")
            var shown = try await db.call(Civic.GetPerson.self, .init(id: person))
            #expect(shown.positions == [first.position] && !shown.positionsUnavailable)
            #expect(shown.positions.first?.checkedOn == "2026-11-23")

            let corrected = try await db.call(
                Civic.SetStatedPosition.self, request(position: "undecided", checkedOn: "2026-11-24"), as: editor,
                roles: ["admin"])
            #expect(!corrected.created && corrected.position.position == "undecided")
            shown = try await db.call(Civic.GetPerson.self, .init(id: person))
            #expect(shown.positions.map(\.position) == ["undecided"])
            #expect(
                try await db.count(
                    "SELECT count(*) FROM civic.stated_positions WHERE entered_by = '\(editor.uuidString.lowercased())'")
                    == 1)

            // The clock says 2026-11-24: neither day may be later.
            for (bad, field) in [
                (request(position: "maybe"), "position"), (request(statedOn: "2026-11-25"), "statedOn"),
                (request(statedOn: "20-11-2026"), "statedOn"), (request(checkedOn: "2026-11-25"), "checkedOn"),
                (request(checkedOn: "2026-11-19"), "checkedOn"), (request(sourceUrl: "ftp://example.org/x"), "sourceUrl"),
            ] {
                let error = await db.error(Civic.SetStatedPosition.self, bad, as: editor, roles: ["civic_editor"])
                #expect(error?.code == .invalidArgument && error?.field == field, "\(field): \(String(describing: error))")
            }
            for bad in [request(person: UUID().uuidString), request(bill: UUID().uuidString), request(bill: "item-9")] {
                let error = await db.error(Civic.SetStatedPosition.self, bad, as: editor, roles: ["civic_editor"])
                #expect(error?.code == .notFound)
            }

            let delete = Civic.DeleteStatedPosition.Request(personId: person, billId: bill)
            #expect(await db.error(Civic.DeleteStatedPosition.self, delete, as: UUID())?.code == .permissionDenied)
            _ = try await db.call(Civic.DeleteStatedPosition.self, delete, as: editor, roles: ["civic_editor"])
            shown = try await db.call(Civic.GetPerson.self, .init(id: person))
            #expect(shown.positions.isEmpty && shown.positionsUnavailable)
            #expect(
                await db.error(Civic.DeleteStatedPosition.self, delete, as: editor, roles: ["civic_editor"])?.code
                    == .notFound)
        }
    }

    @Test("a file's members, roll calls and positions are checked: each refusal names its field and keeps nothing")
    func refusals() async throws {
        try await CivicDatabase.with { db in
            let local = Self.importer(db)
            var cases: [(Civic.LocalFile, String)] = []
            var file = Self.file()
            file.members![0].terms = []
            cases.append((file, "members[0].terms"))
            file = Self.file()
            file.members![0].terms[1].endDate = "2024-01-01"
            cases.append((file, "members[0].terms[1].endDate"))
            file = Self.file()
            file.members![2].id = "member-1"
            cases.append((file, "members[2].id"))
            file = Self.file()
            file.members![1].sources = ["mailto:someone@example.org"]
            cases.append((file, "members[1].sources[0]"))
            file = Self.file()
            file.members![1].checkedOn = "yesterday"
            cases.append((file, "members[1].checkedOn"))
            file = Self.file()
            file.items![2].votes![0].votes[0].member = "stranger"
            cases.append((file, "items[2].votes[0].votes[0].member"))
            file = Self.file()
            file.items![2].votes![0].votes[1].option = "maybe"
            cases.append((file, "items[2].votes[0].votes[1].option"))
            file = Self.file()
            file.items![2].votes![0].votes[1].member = "mayor"
            cases.append((file, "items[2].votes[0].votes[1].member"))
            file = Self.file()
            file.items![0].votes![0].result = "tabled"
            cases.append((file, "items[0].votes[0].result"))
            file = Self.file()
            file.positions![0].position = "lukewarm"
            cases.append((file, "positions[0].position"))
            file = Self.file()
            file.positions![0].checkedOn = "2026-11-01"
            cases.append((file, "positions[0].checkedOn"))
            file = Self.file()
            file.positions![0].member = "stranger"
            cases.append((file, "positions[0].member"))
            // An item neither in this file nor stored: refused in the transaction, nothing kept.
            file = Self.file()
            file.positions![0].item = "2025-01-01-item-1"
            cases.append((file, "positions[0].item"))
            for (file, field) in cases {
                do {
                    _ = try await local.apply(file)
                    Issue.record("\(field): accepted")
                } catch let error as ServiceError {
                    #expect(error.code == .invalidArgument && error.field == field, "\(field): \(error)")
                }
            }
            for table in ["bills", "people", "meetings", "stated_positions", "member_votes"] {
                #expect(try await db.count("SELECT count(*) FROM civic.\(table)") == 0, "\(table)")
            }
        }
    }

    @Test("the shipped San Luis Obispo City Council sample: marked as sample, a mayor of two-year terms and four members at large, votes; CIVIC_LOCAL_FILES imports it")
    func shippedSample() async throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/civic/san_luis_obispo_city_council.sample.json")
            .path
        let files = try LocalImporter.configuredFiles(ProcessEnvironment(["CIVIC_LOCAL_FILES": path]))
        let sample = try #require(files.first)
        #expect(files.count == 1 && sample.sample == true && sample.jurisdiction.id == Self.council)
        let members = try #require(sample.members)
        #expect(members.count == 5)
        #expect(members.allSatisfy { $0.terms.allSatisfy { $0.district == nil } }, "elected at large")
        let mayors = members.filter { $0.terms.last?.office == "Mayor" }
        #expect(mayors.count == 1)
        func years(_ term: Civic.LocalTerm) -> Int {
            Int(term.endDate!.prefix(4))! - Int(term.startDate.prefix(4))!
        }
        #expect(mayors.first?.terms.allSatisfy { years($0) == 2 } == true)
        #expect(
            members.filter { $0.terms.last?.office == "Council Member" }.flatMap(\.terms).allSatisfy { years($0) == 4 })
        #expect((sample.items ?? []).contains { $0.votes?.isEmpty == false })
        #expect(sample.positions?.isEmpty == false)
        #expect(
            throws: ProcessEnvironment.InvalidSetting.self,
            "an unreadable file stops the start"
        ) { try LocalImporter.configuredFiles(ProcessEnvironment(["CIVIC_LOCAL_FILES": path + ".missing"])) }
        try await CivicDatabase.with { db in
            let reply = try await Self.importer(db).apply(sample)
            #expect(reply.members == 5 && reply.billsNew == sample.items?.count && reply.positions > 0)
            let people = try await db.call(Civic.ListPeople.self, .init(jurisdiction: Self.council)).items
            #expect(people.filter { $0.office == "Mayor" }.count == 1 && people.count == 5)
            var available = 0
            for person in people {
                let detail = try await db.call(Civic.GetPerson.self, .init(id: person.id))
                #expect(detail.sample == true && detail.terms?.isEmpty == false)
                if !detail.positionsUnavailable { available += 1 }
            }
            #expect(available == 5, "every member has a vote on an active item or a stated position")
        }
    }
}
