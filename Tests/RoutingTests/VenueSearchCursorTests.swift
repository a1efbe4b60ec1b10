import Contract
import RoutingContract
import RoutingService
import Testing

@Suite("routing: the cursor of a venue search (no I/O)")
struct VenueSearchCursorTests {
    typealias Search = Routing.SearchVenues.Request

    @Test("the cursor after a page reads back as the next offset, with the same search at any page size")
    func roundTrip() throws {
        let search = Search(q: "Library ", kind: "landmark", nearLat: -25.75, nearLon: 28.23, limit: 5, radius: 500)
        let text = try #require(VenueSearchCursor.after(10, count: 5, of: search))
        var next = Search(q: "library", kind: "landmark", nearLat: -25.75, nearLon: 28.23, limit: 50, radius: 500)
        next.cursor = text
        #expect(try VenueSearchCursor.parse(next)?.offset == 15)
        #expect(try VenueSearchCursor.parse(Search()) == nil, "no cursor: the first page")
    }

    @Test("a cursor of another search, a made-up one, or one past the deepest page is invalid_argument")
    func refused() throws {
        let search = Search(q: "library")
        let text = try #require(VenueSearchCursor.after(0, count: 20, of: search))
        for other in [Search(q: "hall"), Search(q: "library", kind: "sport"), Search(q: "library", radius: 10)] {
            var asked = other
            asked.cursor = text
            #expect(throws: ServiceError.self) { try VenueSearchCursor.parse(asked) }
        }
        for junk in [
            "", "20", "x.1f", "20.", "0.\(text.split(separator: ".")[1])", "20001.\(text.split(separator: ".")[1])",
        ] {
            var asked = search
            asked.cursor = junk
            #expect(throws: ServiceError.self, "\(junk)") { try VenueSearchCursor.parse(asked) }
        }
        #expect(VenueSearchCursor.after(VenueSearchCursor.maximumOffset, count: 1, of: search) == nil)
    }
}
