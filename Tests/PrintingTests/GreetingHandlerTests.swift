import Contract
import Foundation
import PrintingContract
import Testing

@testable import PrintingService

/// Greetings against the real PostgreSQL: saved greetings per user (retries, bounds, pages,
/// another's 404) and suggestions from an uploaded photo's EXIF position.
@Suite("greetings against PostgreSQL", .serialized)
struct GreetingHandlerTests {
    static func desk(_ fixture: PrintingFixture, gazetteer: Gazetteer? = nil) throws -> GreetingHandler {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("greetings-\(UUID())")
        let images = ImageLibrary(
            client: fixture.client, originals: try OriginalsDirectory(root: root),
            limits: ImageLimits(maxBytes: 1_000_000, maxPixels: 1_000_000), clock: fixture.clock,
            logger: PrintingFixture.logger)
        let places = try gazetteer ?? .loaded(GreetingRulesTests.gazetteer.get())
        return GreetingHandler(
            gazetteer: places, images: images,
            store: GreetingStore(client: fixture.client, logger: PrintingFixture.logger),
            clock: fixture.clock)
    }

    static func user() -> Actor { Actor(userId: UUID().uuidString.lowercased(), roles: ["user"]) }

    static func code(_ body: () async throws -> Void) async -> ErrorCode? {
        do {
            try await body()
            return nil
        } catch let error as ServiceError {
            return error.code
        } catch {
            return .internal
        }
    }

    @Test(
        "saved greetings: a retry answers the same row, each user sees only theirs, pages newest first, another's delete 404"
    )
    func savedGreetings() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2026-11-25")) { fixture in
            let desk = try Self.desk(fixture)
            let ann = Self.user()
            let bob = Self.user()
            let first = try await desk.save(.init(text: "Hälsningar från Lund!", occasion: "travel"), actor: ann)
            #expect(first.occasion == .travel && first.text == "Hälsningar från Lund!")
            let again = try await desk.save(.init(text: "Hälsningar från Lund!", occasion: "travel"), actor: ann)
            #expect(again.id == first.id, "a retry makes no copy")
            let bobs = try await desk.save(.init(text: "Hälsningar från Lund!"), actor: bob)
            #expect(bobs.id != first.id && bobs.occasion == nil)
            var ids = [first.id]
            for number in 1...4 {
                fixture.clock.advance(by: 1)
                ids.append(try await desk.save(.init(text: "Card \(number)"), actor: ann).id)
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await desk.list(PageRequest(cursor: cursor, limit: 2), actor: ann)
                #expect(page.items.count <= 2)
                seen += page.items.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == ids.reversed(), "newest first, each once")
            #expect(try await desk.list(PageRequest(), actor: bob).items.map(\.id) == [bobs.id])

            #expect(await Self.code { _ = try await desk.delete(.init(id: first.id), actor: bob) } == .notFound)
            #expect(await Self.code { _ = try await desk.delete(.init(id: "not-a-uuid"), actor: ann) } == .notFound)
            _ = try await desk.delete(.init(id: first.id), actor: ann)
            #expect(await Self.code { _ = try await desk.delete(.init(id: first.id), actor: ann) } == .notFound)
            #expect(try await desk.list(PageRequest(), actor: ann).items.count == 4)
            #expect(try await desk.list(PageRequest(), actor: bob).items.count == 1, "bob's copy stays")

            #expect(await Self.code { _ = try await desk.save(.init(text: " \n\t "), actor: ann) } == .invalidArgument)
            #expect(await Self.code { _ = try await desk.save(.init(text: ""), actor: ann) } == .invalidArgument)
            let longest = String(repeating: "å", count: 500)
            #expect(try await desk.save(.init(text: longest), actor: ann).text == longest)
            #expect(
                await Self.code { _ = try await desk.save(.init(text: longest + "å"), actor: ann) } == .invalidArgument)
            #expect(
                await Self.code { _ = try await desk.save(.init(text: "Hi", occasion: "xmas"), actor: ann) }
                    == .invalidArgument)
            #expect(
                await Self.code { _ = try await desk.list(PageRequest(cursor: "nonsense"), actor: ann) }
                    == .invalidArgument)
            #expect(
                await Self.code { _ = try await desk.list(PageRequest(limit: 201), actor: ann) } == .invalidArgument)
        }
    }

    @Test("at most 200 saved greetings a user: the 201st is failed_precondition, a retry of a saved one still answers")
    func perUserBound() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2026-11-25")) { fixture in
            let desk = try Self.desk(fixture)
            let ann = Self.user()
            for number in 1...Printing.SaveGreeting.maxPerUser {
                _ = try await desk.save(.init(text: "Greeting \(number)"), actor: ann)
            }
            #expect(
                await Self.code { _ = try await desk.save(.init(text: "One too many"), actor: ann) }
                    == .failedPrecondition)
            #expect(try await desk.save(.init(text: "Greeting 7"), actor: ann).text == "Greeting 7")
            #expect(try await desk.save(.init(text: "Someone else's first"), actor: Self.user()).text.isEmpty == false)
        }
    }

    @Test(
        "suggestions from a photo's EXIF position (Lund), by coordinates (Stellenbosch), and the rules of the request")
    func suggestions() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2026-11-25")) { fixture in
            let desk = try Self.desk(fixture)
            let ann = Self.user()
            // 55°42'16.92" N, 13°11'21.96" E: Lund cathedral.
            let exif = TestImages.exif(
                orientation: 1, latitude: (55, 42, 1692), north: true, longitude: (13, 11, 2196), east: true)
            let jpeg = TestImages.jpeg(width: 40, height: 20, exif: exif)
            let image = try await desk.images.upload(
                .init(contentType: "image/jpeg", data: Data(jpeg).base64EncodedString()), actor: ann)
            let lund = try await desk.suggestions(.init(imageId: image.id, lang: "sv"), actor: ann)
            #expect(lund.language == .sv && lund.place?.name == "Lund" && lund.place?.countryCode == "SE")
            #expect(lund.items.first?.text == "Hälsningar från Lund!")
            #expect((lund.place?.distanceMeters ?? .max) <= 1_000)
            #expect(
                await Self.code { _ = try await desk.suggestions(.init(imageId: image.id), actor: Self.user()) }
                    == .notFound, "another's image")
            let plain = try await desk.images.upload(
                .init(
                    contentType: "image/jpeg", data: Data(TestImages.jpeg(width: 8, height: 8)).base64EncodedString()),
                actor: ann)
            #expect(
                await Self.code { _ = try await desk.suggestions(.init(imageId: plain.id), actor: ann) }
                    == .failedPrecondition, "no GPS in the photo")

            let stellenbosch = try await desk.suggestions(.init(lat: -33.9346, lon: 18.8600, lang: "af"), actor: ann)
            #expect(stellenbosch.items.first?.text == "Groete uit Stellenbosch!")
            let sea = try await desk.suggestions(.init(lat: 0, lon: -30), actor: ann)
            #expect(sea.place == nil && sea.language == .en && sea.items.count == 5)
            for bad in [
                Printing.SuggestGreetings.Request(lat: 1, lon: 1, imageId: image.id),
                .init(lat: 1), .init(lon: 1), .init(), .init(lat: 91, lon: 0), .init(lat: 0, lon: 181),
                .init(lat: 0, lon: 0, lang: "de"),
            ] {
                #expect(
                    await Self.code { _ = try await desk.suggestions(bad, actor: ann) } == .invalidArgument, "\(bad)")
            }
            let off = try Self.desk(fixture, gazetteer: .missing("the gazetteer file x is missing"))
            #expect(
                await Self.code { _ = try await off.suggestions(.init(lat: 1, lon: 1), actor: ann) } == .unavailable)
            #expect(
                try off.templates(.init(occasion: "birthday", lang: "af")).items.count == 11,
                "templates need no gazetteer")
        }
    }
}
