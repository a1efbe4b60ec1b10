import Contract
import Foundation
import Testing

@Suite("Paged lists: page size, the extra row, the keyset cursor")
struct PageTests {
    @Test("the default limit when none is asked; 0 and past the bound are invalid_argument naming limit")
    func pageSize() throws {
        let size = PageSize(default: 20, max: 100)
        #expect(try size.limit(nil) == 20)
        #expect(try size.limit(1) == 1 && size.limit(100) == 100)
        for bad in [0, -1, 101] {
            #expect {
                _ = try size.limit(bad)
            } throws: { error in
                (error as? ServiceError)?.code == .invalidArgument
                    && (error as? ServiceError)?.details?["field"] == .string("limit")
            }
        }
    }

    @Test("limit + 1 rows fetched: a next page after the last kept; limit or fewer: the last page")
    func fetchedPlusOne() {
        let more = Page(fetched: [1, 2, 3], limit: 2) { "after-\($0)" }
        #expect(more.items == [1, 2] && more.nextCursor == "after-2")
        let last = Page(fetched: [1, 2], limit: 2) { "after-\($0)" }
        #expect(last.items == [1, 2] && last.nextCursor == nil)
        #expect(Page<Int>(fetched: [], limit: 5) { "\($0)" } == Page(items: []))
    }

    @Test("the JSON is {items, nextCursor}, without nextCursor on the last page")
    func json() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(Page(items: ["a"], nextCursor: "c")), as: UTF8.self)
        #expect(text == #"{"items":["a"],"nextCursor":"c"}"#)
        #expect(String(decoding: try encoder.encode(Page<String>(items: [])), as: UTF8.self) == #"{"items":[]}"#)
    }

    @Test("a keyset cursor made from a time reads back to the same microsecond and id")
    func keysetRoundTrip() throws {
        let id = UUID()
        let time = Date(timeIntervalSince1970: 1_795_536_000.123456)
        let cursor = try #require(try KeysetCursor.parse(KeysetCursor.text(at: time, id: id.uuidString)))
        #expect(cursor == KeysetCursor(micros: 1_795_536_000_123_456, id: id))
        #expect(throws: ServiceError.self) { try KeysetCursor.parse("1795536000123456") }
    }
}
