import Contract
import Foundation
import PostgresNIO
import PrintingContract
import Store
import Testing

@testable import PrintingService

/// The standard gallery against the real PostgreSQL: positions checked, EXIF GPS as the
/// fallback, nearest first, keyset pages that stay exact when images are added between them,
/// and gallery images usable by any user.
@Suite("printing: the standard gallery", .serialized)
struct GalleryTests {
    static let admin = Actor(userId: UUID().uuidString, roles: ["admin"])

    /// The gallery's handler over `images`, on their database and clock.
    static func handler(_ images: ImageLibrary) -> GalleryHandler {
        GalleryHandler(
            images: images, store: GalleryStore(client: images.client, logger: PrintingFixture.logger),
            clock: images.clock, logger: PrintingFixture.logger)
    }

    static func gallery(_ fixture: PrintingFixture) throws -> GalleryHandler {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-\(UUID())")
        let images = ImageLibrary(
            client: fixture.client, originals: try OriginalsDirectory(root: root),
            limits: ImageLimits(maxBytes: 1_000_000, maxPixels: 1_000_000), clock: fixture.clock,
            logger: PrintingFixture.logger)
        return GalleryTests.handler(images)
    }

    static func add(_ gallery: GalleryHandler, _ title: String, lat: Double?, lon: Double?, bytes: [UInt8]? = nil)
        async throws -> Printing.GalleryItem
    {
        try await gallery.add(
            .init(
                contentType: bytes?.first == 0xFF ? "image/jpeg" : "image/png",
                data: Data(bytes ?? TestImages.png(width: 30, height: 20)).base64EncodedString(), title: title,
                lat: lat, lon: lon), actor: admin)
    }

    /// Which code and field a failing call answers with.
    static func refusal(_ work: () async throws -> Void) async -> String? {
        do {
            try await work()
            return nil
        } catch let error as ServiceError {
            let field: String? =
                if case .string(let name)? = error.details?["field"] { name } else { nil }
            return "\(error.code.rawValue):\(field ?? "-")"
        } catch {
            return "\(error)"
        }
    }

    @Test("a list request without a position, or out of range, or with another position's cursor is refused")
    func positionRules() throws {
        let missing = #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: 10, lon: nil)) }
        #expect(missing?.message.contains("lon") == true)
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: 91, lon: 0)) }
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: 0, lon: -181)) }
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: 0, lon: 0, limit: 101)) }
        let query = try GalleryQuery(.init(lat: 55.7, lon: 13.2))
        #expect(query.limit == Printing.ListGallery.defaultLimit)
        let cursor = query.cursor(after: 1234.5, id: UUID())
        #expect(try GalleryQuery(.init(lat: 55.7, lon: 13.2, cursor: cursor)).after?.distance == 1234.5)
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: 55.8, lon: 13.2, cursor: cursor)) }
        #expect(throws: ServiceError.self) { try GalleryQuery(.init(lat: 55.7, lon: 13.2, cursor: "not-ours")) }
    }

    @Test("admins add images (position or EXIF GPS; title required); users list them nearest first")
    func addAndList() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-06-01")) { fixture in
            let gallery = try Self.gallery(fixture)
            // A spot in the South Pacific, moved east or west each run; the middle image's EXIF
            // GPS is 48°30' S on the same meridian (seconds in hundredths).
            let hundredths = UInt32.random(in: 0..<36_000)
            let base = (lat: -48.4, lon: -(123.5 + Double(hundredths) / 360_000))
            let far = try await Self.add(gallery, "far", lat: base.lat + 0.3, lon: base.lon)
            let near = try await Self.add(gallery, "near", lat: base.lat + 0.01, lon: base.lon)
            let gps = TestImages.exif(
                orientation: 1, latitude: (48, 30, 0), north: false, longitude: (123, 30, hundredths), east: false)
            let middle = try await Self.add(
                gallery, "middle", lat: nil, lon: nil, bytes: TestImages.jpeg(width: 40, height: 30, exif: gps))
            #expect(abs(middle.lat - -48.5) < 1e-6 && abs(middle.lon - base.lon) < 1e-6, "from EXIF GPS: \(middle)")

            let page = try await gallery.list(
                .init(lat: base.lat, lon: base.lon, limit: 100), actor: GalleryTests.admin)
            let mine = page.items.filter { [near.id, middle.id, far.id].contains($0.id) }
            #expect(mine.map(\.id) == [near.id, middle.id, far.id])
            let first = try #require(mine.first?.distanceMeters)
            #expect(abs(first - 1_112) < 5, "0.01 degree of latitude is about 1.1 km: \(first)")
            #expect(mine.first?.width == 30 && mine.first?.height == 20)
            #expect(page.items.map { $0.distanceMeters ?? -1 } == page.items.map { $0.distanceMeters ?? -1 }.sorted())

            #expect(
                await Self.refusal { _ = try await Self.add(gallery, "no place", lat: nil, lon: nil) }
                    == "invalid_argument:lat")
            #expect(
                await Self.refusal { _ = try await Self.add(gallery, "half", lat: 1, lon: nil) }
                    == "invalid_argument:lon")
            #expect(
                await Self.refusal { _ = try await Self.add(gallery, " ", lat: 1, lon: 1) } == "invalid_argument:title")
            #expect(
                await Self.refusal {
                    _ = try await Self.add(gallery, "text", lat: 1, lon: 1, bytes: Array("hello".utf8))
                }?.hasPrefix("invalid_argument") == true, "the upload guards apply")

            let user = Actor(userId: UUID().uuidString, roles: ["user"])
            #expect(try await gallery.images.info(near.imageId, actor: user).width == 30, "any user may use it")
            try await gallery.remove(.init(id: near.id), admin: GalleryTests.admin)
            let after = try await gallery.list(.init(lat: base.lat, lon: base.lon, limit: 3), actor: GalleryTests.admin)
            #expect(!after.items.contains { $0.id == near.id })
            #expect(try await gallery.images.info(near.imageId, actor: user).width == 30, "still renders once removed")
            #expect(
                await Self.refusal { try await gallery.remove(.init(id: near.id), admin: GalleryTests.admin) }
                    == "not_found:-")
            for item in [middle, far] { try await gallery.remove(.init(id: item.id), admin: GalleryTests.admin) }
        }
    }

    @Test("positions are kept to 9 decimals: a hair's breadth (1e-200 degrees) lists at 0 m, not a database underflow")
    func tinyDifferences() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-06-01")) { fixture in
            let gallery = try Self.gallery(fixture)
            let item = try await Self.add(gallery, "hair", lat: 1e-200, lon: -1e-200)
            #expect(item.lat == 0 && item.lon == 0)
            #expect(try GalleryQuery(.init(lat: 12.3456789012, lon: .leastNonzeroMagnitude)).lat == 12.345678901)
            let page = try await gallery.list(
                .init(lat: .leastNonzeroMagnitude, lon: 1e-300, limit: 100), actor: GalleryTests.admin)
            #expect(page.items.contains { $0.id == item.id && $0.distanceMeters == 0 })
            try await gallery.remove(.init(id: item.id), admin: GalleryTests.admin)
        }
    }

    @Test("pages of 2 return every image exactly once, in order, while images are added between pages")
    func keysetPages() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-06-01")) { fixture in
            let gallery = try Self.gallery(fixture)
            let base = (lat: 60.0 + Double.random(in: 0..<1), lon: 170.0 + Double.random(in: 0..<1))
            var added: [String] = []
            for step in 1...5 {
                added.append(
                    try await Self.add(gallery, "p\(step)", lat: base.lat + Double(step) * 0.001, lon: base.lon).id)
            }
            var seen: [String] = []
            var distances: [Double] = []
            var cursor: String?
            repeat {
                let page = try await gallery.list(
                    .init(lat: base.lat, lon: base.lon, cursor: cursor, limit: 2), actor: GalleryTests.admin)
                seen += page.items.map(\.id)
                distances += page.items.compactMap(\.distanceMeters)
                cursor = page.nextCursor
                if seen.count == 2 {
                    // Nearer than the page already read: must not show up later.
                    _ = try await Self.add(gallery, "late", lat: base.lat, lon: base.lon)
                }
            } while cursor != nil && seen.count < 400
            let mine = seen.filter(added.contains)
            #expect(mine == added, "each of ours once, nearest first")
            #expect(Set(seen).count == seen.count, "no item twice")
            #expect(distances == distances.sorted())
            let late = try await gallery.list(
                .init(lat: base.lat, lon: base.lon, limit: 100), actor: GalleryTests.admin
            ).items
            for item in late where added.contains(item.id) || item.title == "late" {
                try await gallery.remove(.init(id: item.id), admin: GalleryTests.admin)
            }
        }
    }
}
