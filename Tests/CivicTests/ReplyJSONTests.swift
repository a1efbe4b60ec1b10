import CivicContract
import CivicService
import Contract
import Foundation
import Testing

/// The replies civic writes straight into bytes decode to the values `Wire`'s encoder would
/// have written, whatever the text holds.
@Suite("civic: replies written straight to JSON")
struct ReplyJSONTests {
    static func bill(_ id: Int, title: String, summary: String?, latest: String?) -> Civic.BillSummary {
        .init(
            id: "00000000-0000-0000-0000-\(String(format: "%012d", id))",
            jurisdiction: .init(id: "ocd-jurisdiction/country:us/state:ca/government", name: "California", level: .state),
            session: "20252026", identifier: "AB \(id)", title: title, summary: summary,
            subjects: ["Water", "Quotes \"and\" \\slashes/"], status: .inCommittee, introducedOn: "2026-01-05",
            latestActionOn: latest == nil ? nil : "2026-11-02", latestAction: latest, updatedAt: "2026-11-24T08:00:00Z")
    }

    static let bills = [
        bill(1, title: "Plain title", summary: "A summary.", latest: "Referred to Com. on W., P., & W."),
        bill(2, title: "Tabs\tnewlines\nreturns\r, a bell \u{7}, a NUL-less \u{1F} and é, 水, 🏛", summary: nil, latest: nil),
        bill(3, title: "", summary: "\\\"", latest: "/"),
    ]

    @Test("a page of bills, with and without a next cursor, decodes to the page")
    func page() throws {
        for page in [Civic.ListBills.Reply(items: Self.bills, nextCursor: "MTc2NDU0|abc"), .init(items: [], nextCursor: nil)]
        {
            let decoded = try Wire.makeDecoder().decode(Civic.ListBills.Reply.self, from: Data(ReplyJSON.page(page)))
            #expect(decoded == page)
        }
    }

    @Test("highlights per level decode to the reply")
    func highlights() throws {
        let reply = Civic.HighlightedBills.Reply(
            levels: [.init(level: .local, bills: []), .init(level: .state, bills: Self.bills)])
        let decoded = try Wire.makeDecoder().decode(
            Civic.HighlightedBills.Reply.self, from: Data(ReplyJSON.highlights(reply)))
        #expect(decoded == reply)
    }

    @Test("plain text is written as Wire's encoder writes it: members sorted, absent ones left out")
    func sameBytes() throws {
        let page = Civic.ListBills.Reply(items: [Self.bills[0]], nextCursor: "next")
        #expect(ReplyJSON.page(page) == Array(try Wire.makeEncoder().encode(page)))
    }
}
