import Contract
import Foundation
import PostgresNIO
import PrintingContract
import Store
import Testing

@testable import PrintingService

/// The gallery without a position (newest first) and its keyword search: the list rule alone,
/// then against the real PostgreSQL (the trigram index of migration 0011 included).
@Suite("printing: gallery without a position, and keyword search", .serialized)
struct GallerySearchTests {
    @Test("lat and lon are both or neither; no position orders newest first; a cursor stays with its order")
    func positionIsOptional() throws {
        let none = try GalleryQuery(.init(lat: nil, lon: nil))
        #expect(!none.hasPosition && none.lat == nil && none.words.isEmpty)
        for (lat, lon, named) in [(10.0, nil, "lon"), (nil, 20.0, "lat")] as [(Double?, Double?, String)] {
            let error = #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: lat, lon: lon)) }
            #expect(error?.details?["field"] == .string(named), "one half alone names the other")
        }
        let newest = none.cursor(afterCreated: 1_700_000_000_123_456, id: UUID())
        #expect(try GalleryQuery(.init(lat: nil, lon: nil, cursor: newest)).after?.created == 1_700_000_000_123_456)
        // A cursor of one order is not one of the other.
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: 1, lon: 2, cursor: newest)) }
        let near = try GalleryQuery(.init(lat: 1, lon: 2)).cursor(after: 5, id: UUID())
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: nil, lon: nil, cursor: near)) }
    }

    @Test("q: words lower-cased and deduplicated, LIKE's characters literal, at most 100 characters and 8 words")
    func searchWords() throws {
        #expect(try GalleryQuery(.init(lat: nil, lon: nil, q: "  Lund  beach LUND ")).words == ["lund", "beach"])
        #expect(try GalleryQuery(.init(lat: nil, lon: nil, q: " \t ")).words.isEmpty, "blank is no search")
        #expect(GalleryQuery.likePattern("50%_off\\") == "%50\\%\\_off\\\\%")
        #expect(try GalleryQuery(.init(lat: nil, lon: nil, q: String(repeating: "a", count: 100))).words.count == 1)
        let long = #expect(throws: ServiceError.self) {
            try GalleryQuery(.init(lat: nil, lon: nil, q: String(repeating: "a", count: 101)))
        }
        #expect(long?.details?["field"] == "q")
        let many = #expect(throws: ServiceError.self) {
            try GalleryQuery(.init(lat: nil, lon: nil, q: "a b c d e f g h i"))
        }
        #expect(many?.details?["field"] == "q")
        // The same search with another q is another listing.
        let cursor = try GalleryQuery(.init(lat: nil, lon: nil, q: "lund")).cursor(afterCreated: 1, id: UUID())
        #expect(try GalleryQuery(.init(lat: nil, lon: nil, q: "Lund", cursor: cursor)).after != nil)
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: nil, lon: nil, q: "malmö", cursor: cursor)) }
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: nil, lon: nil, cursor: cursor)) }
    }

    @Test("tags trimmed and deduplicated ignoring case, at most 10 of 40 characters; place at most 200")
    func labels() throws {
        #expect(try GalleryLabels.tags([" Beach", "beach", "", "Sunset "]) == ["Beach", "Sunset"])
        #expect(try GalleryLabels.tags(nil).isEmpty)
        #expect(throws: ServiceError.self) { try GalleryLabels.tags((0...10).map { "t\($0)" }) }
        #expect(throws: ServiceError.self) { try GalleryLabels.tags([String(repeating: "x", count: 41)]) }
        #expect(try GalleryLabels.place("  Lund ") == "Lund")
        #expect(try GalleryLabels.place("  ") == nil)
        #expect(throws: ServiceError.self) { try GalleryLabels.place(String(repeating: "x", count: 201)) }
    }

    @Test(
        "no position: newest first, pages exact; q matches title, tag or place (any case, part of a word), with or without a position"
    )
    func searchInDatabase() async throws {
        // Later than any other test's images, so that this test's are the newest.
        let start = Date(timeIntervalSince1970: 7_000_000_000 + Double.random(in: 0..<1_000_000))
        try await PrintingFixture.with(at: start) { fixture in
            let gallery = try GalleryTests.gallery(fixture)
            let token = "zq" + UUID().uuidString.prefix(8).lowercased()
            func add(_ title: String, tags: [String] = [], place: String? = nil, lat: Double) async throws
                -> Printing.GalleryItem
            {
                fixture.clock.advance(by: 60)
                return try await gallery.add(
                    .init(
                        contentType: "image/png",
                        data: Data(TestImages.png(width: 30, height: 20)).base64EncodedString(),
                        title: title, lat: lat, lon: 13.19, tags: tags, place: place), actor: GalleryTests.admin)
            }
            let harbour = try await add("Harbour at dawn \(token)", tags: ["Boats"], place: "Malmö", lat: 55.61)
            let beach = try await add("Sand \(token)", tags: ["Beach", "Sunset"], place: "Ystad", lat: 55.43)
            let cathedral = try await add("Cathedral \(token)", tags: ["church"], place: "Lund", lat: 55.70)
            let plain = try await add("Plain \(token)", lat: 55.0)
            #expect(beach.tags == ["Beach", "Sunset"] && beach.place == "Ystad")
            let ours = [plain.id, cathedral.id, beach.id, harbour.id]

            // No position: newest first, a page of 3 and the rest, nothing twice.
            let first = try await gallery.list(.init(lat: nil, lon: nil, limit: 3), actor: GalleryTests.admin)
            #expect(first.items.map(\.id) == Array(ours.prefix(3)), "\(first.items.map(\.title))")
            #expect(first.items.allSatisfy { $0.distanceMeters == nil })
            let next = try await gallery.list(
                .init(lat: nil, lon: nil, cursor: first.nextCursor, limit: 3), actor: GalleryTests.admin)
            #expect(next.items.first?.id == harbour.id)
            let dates = (first.items + next.items).map(\.createdAt)
            #expect(dates == dates.sorted(by: >))

            // The search: by place (part of a word, any case), by tag, by title, all words.
            func found(_ q: String, lat: Double? = nil, lon: Double? = nil) async throws -> [String] {
                try await gallery.list(
                    .init(lat: lat, lon: lon, q: "\(q) \(token)", limit: 100), actor: GalleryTests.admin
                ).items.map(\.id)
            }
            #expect(try await found("LUN") == [cathedral.id], "place name")
            #expect(try await found("sunset") == [beach.id], "tag")
            #expect(try await found("dawn") == [harbour.id], "title")
            #expect(try await found("beach lund").isEmpty, "every word must match")
            #expect(try await found("") == ours, "the token alone: all four, newest first")
            #expect(try await found("50%").isEmpty, "% is no wildcard")
            // With a position: the matches nearest first, with their distance.
            let nearLund = try await found("", lat: 55.70, lon: 13.19)
            #expect(nearLund == [cathedral.id, harbour.id, beach.id, plain.id])
            let page = try await gallery.list(
                .init(lat: 55.70, lon: 13.19, q: "sunset \(token)"), actor: GalleryTests.admin)
            #expect(page.items.map(\.id) == [beach.id] && (page.items.first?.distanceMeters ?? 0) > 20_000)

            // The trigram index serves the search on a gallery too big to read whole (sequential
            // scans off; the newest-first index, cheaper on a few rows, dropped in a transaction
            // that is rolled back).
            struct Plan: Error { let text: String }
            var plan = ""
            do {
                try await fixture.client.transaction(logger: PrintingFixture.logger) { connection in
                    try await connection.fetch("SET LOCAL enable_seqscan = off", logger: PrintingFixture.logger)
                    try await connection.fetch("DROP INDEX printing.gallery_newest_idx", logger: PrintingFixture.logger)
                    var lines: [String] = []
                    let rows = try await connection.fetch(
                        """
                        EXPLAIN SELECT id FROM printing.gallery g WHERE g.removed_at IS NULL
                        AND printing.gallery_search_text(g.title, g.place, g.tags) LIKE lower(\("%lund%"))
                        """, logger: PrintingFixture.logger)
                    for try await line in rows.decode(String.self) { lines.append(line) }
                    throw Plan(text: lines.joined(separator: "\n"))
                }
            } catch let explained as Plan {
                plan = explained.text
            }
            #expect(plan.contains("gallery_search_trgm"), "\(plan)")
            for id in ours { try await gallery.remove(.init(id: id), admin: GalleryTests.admin) }
            #expect(try await found("").isEmpty, "removed images are not found")
        }
    }
}
