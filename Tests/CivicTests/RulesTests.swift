import CivicContract
import CivicService
import Contract
import Foundation
import Testing

@Suite("civic: rules (no I/O)")
struct RulesTests {
    @Test("status follows the last decisive action; councils pass in one vote, legislatures in two")
    func status() {
        #expect(BillStatusRule.status(actions: [["introduction"]], chambers: 2) == .introduced)
        #expect(BillStatusRule.status(actions: [["introduction"], ["referral-committee"]], chambers: 2) == .inCommittee)
        #expect(
            BillStatusRule.status(actions: [["introduction"], ["referral-committee"], ["passage"]], chambers: 2)
                == .passedOneChamber)
        #expect(BillStatusRule.status(actions: [["introduction"], ["passage"], ["passage"]], chambers: 2) == .passed)
        #expect(BillStatusRule.status(actions: [["passage"], ["passage"], ["executive-veto"]], chambers: 2) == .vetoed)
        #expect(
            BillStatusRule.status(actions: [["passage"], ["passage"], ["executive-veto"], ["veto-override-passage"]],
                chambers: 2) == .enacted)
        #expect(BillStatusRule.status(actions: [["introduction"], ["passage"]], chambers: 1) == .passed)
        #expect(BillStatusRule.status(actions: [["introduction"], ["adoption"]], chambers: 1) == .enacted)
        #expect(BillStatusRule.status(actions: [["referral-committee"], ["failure"]], chambers: 2) == .failed)
        #expect(BillStatusRule.chambers(at: .local) == 1 && BillStatusRule.chambers(at: .federal) == 2)
    }

    @Test("the level comes from the Open Civic Data id, else the feed's classification")
    func levels() {
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government") == .local)
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government") == .county)
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/country:us/state:ca/government") == .state)
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/country:us/government") == .federal)
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/x", classification: "municipality") == .local)
    }

    static let billJSON = """
        {"id": "ocd-bill/1", "session": "2025-2026", "identifier": "AB 7", "title": "Funds bus service",
         "jurisdiction": {"id": "ocd-jurisdiction/country:us/state:ca/government", "name": "California",
                          "classification": "state"},
         "subject": ["Transportation", "Budget"], "created_at": "2026-02-01T00:00:00+00:00",
         "updated_at": "2026-03-04T05:06:07.123+00:00", "first_action_date": "2026-02-01",
         "abstracts": [{"abstract": "Money for buses.", "note": null}],
         "actions": [{"description": "Passed", "date": "2026-03-01", "classification": ["passage"], "order": 2},
                     {"description": "Introduced", "date": "2026-02-01", "classification": ["introduction"], "order": 1}],
         "sponsorships": [{"name": "Ana Ruiz", "primary": true, "person": {"id": "ocd-person/9", "name": "Ana Ruiz"}}],
         "votes": [], "versions": [], "documents": [], "sources": [{"url": "https://example.gov/ab7"}]}
        """

    @Test("a feed bill becomes a record: timeline in order, status, dates; a change names its fields")
    func billRecord() throws {
        let bill = try OpenStates.makeDecoder().decode(OpenStates.Bill.self, from: Data(Self.billJSON.utf8))
        let record = try BillRecord(bill)
        #expect(record.jurisdiction.level == .state)
        #expect(record.detail.actions.map(\.description) == ["Introduced", "Passed"])
        #expect(record.status == .passedOneChamber)
        #expect(record.introducedOn == "2026-02-01" && record.latestActionOn == "2026-03-01")
        #expect(record.latestAction == "Passed" && record.summary == "Money for buses.")
        #expect(record.subjects == ["Budget", "Transportation"])
        #expect(abs(record.sourceUpdatedAt.timeIntervalSince1970 - 1_772_600_767.123) < 0.001)
        #expect(record.changedFields(since: record.fingerprints).isEmpty)
        let changedJSON = Self.billJSON.replacingOccurrences(of: "Funds bus service", with: "Funds bus and rail service")
            .replacingOccurrences(
                of: #""order": 1}]"#,
                with: #""order": 1}, {"description": "Signed", "date": "2026-04-01", "classification": ["executive-signature"]}]"#)
        let next = try BillRecord(try OpenStates.makeDecoder().decode(OpenStates.Bill.self, from: Data(changedJSON.utf8)))
        #expect(next.changedFields(since: record.fingerprints) == ["actions", "status", "title"])
        #expect(next.status == .enacted)
        var broken = bill
        broken.updatedAt = "soon"
        #expect(throws: ServiceError.self) { try BillRecord(broken) }
    }

    @Test("search text and filters are checked, naming the field")
    func query() throws {
        #expect(try BillQuery.query("  housing ") == "housing")
        #expect(try BillQuery.query(nil) == nil && (try BillQuery.query("   ")) == nil)
        #expect(throws: ServiceError.self) { try BillQuery.query("?!") }
        #expect(throws: ServiceError.self) { try BillQuery.query(String(repeating: "x", count: 201)) }
        let filter = try BillQuery.filter(.init(level: "county", status: "in_committee", sort: "introduced"), topicSubjects: nil)
        #expect(filter.level == .county && filter.status == .inCommittee && filter.sort == .introduced)
    }

    @Test("import slots: one per interval, the same key for every replica")
    func slots() {
        let at = Date(timeIntervalSince1970: 1_795_521_600 + 1_234)
        let slot = ImportSlot(containing: at, intervalSeconds: 3600)
        #expect(slot.start == Date(timeIntervalSince1970: 1_795_521_600))
        #expect(slot.dedupeKey == ImportSlot(containing: at.addingTimeInterval(2_000), intervalSeconds: 3600).dedupeKey)
        #expect(slot.dedupeKey != ImportSlot(containing: at.addingTimeInterval(3_600), intervalSeconds: 3600).dedupeKey)
    }
}
