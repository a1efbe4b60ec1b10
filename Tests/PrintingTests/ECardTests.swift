import Contract
import Foundation
import OrdersContract
import PostgresNIO
import PrintingContract
import Store
import Testing

@testable import PrintingService

/// E-cards from `orders.paid` against the real PostgreSQL: one per order however often the
/// event is handled, rendered into one JPEG of both sides, recorded with its event once, and
/// served by its token. The attempts and the events are in a schema of the test's own, apart
/// from any process or suite on the same database (a notify process would mail the events).
@Suite("printing: e-cards from paid orders", .serialized)
struct ECardTests {
    @Test("the e-card image is the front and the back side by side: twice as wide as one side, a JPEG")
    func sideBySide() {
        let content = PostcardContent(
            size: .a6, image: try? PixelDecoder.decode(TestImages.png(width: 60, height: 40), format: .png),
            greeting: "Hälsningar från Lund\n\n— Åsa")
        let card = ECardImage.render(content, dpi: 100)
        #expect(card.width == 2 * 583 && card.height == 413, "A6 at 100 dpi is 583×413 a side")
        #expect(Array(card.jpeg.prefix(3)) == [0xFF, 0xD8, 0xFF], "a JPEG")
        let a4 = ECardImage.render(PostcardContent(size: .a4), dpi: 50)
        let ratio: Double = Double(a4.width) / Double(a4.height)
        #expect(abs(ratio - 2.0 * 297.0 / 210.0) < 0.01)
    }

    @Test(
        "an e-card's front carries the order's edits: grayscale makes the front grey, the colour image stays coloured without"
    )
    func edits() throws {
        let photo = EditPixelTests.image(width: 300, height: 200)  // one warm colour, r > g > b
        func front(_ edits: [PostcardEdit]) throws -> EditPixelTests.RGB {
            let card = ECardImage.render(PostcardContent(size: .a6, image: photo, edits: edits), dpi: 50)
            let pixels = try PixelDecoder.decode(card.jpeg, format: .jpeg)
            return EditPixelTests.pixel(pixels, card.width / 4, card.height / 2)  // the middle of the front
        }
        let plain = try front([])
        #expect(plain.red > plain.blue + 60, "the photo's colour: \(plain)")
        let gray = try front([.filter(.grayscale)])
        #expect(abs(gray.red - gray.blue) <= 6 && abs(gray.green - gray.blue) <= 6, "grey after the edit: \(gray)")
    }

    @Test("figures: an A6 e-card at the default 150 dpi from a 2000×1400 photo (printed, not asserted)")
    func figures() throws {
        let photo = try PixelDecoder.decode(TestImages.jpeg(width: 2000, height: 1400), format: .jpeg)
        let content = PostcardContent(size: .a6, image: photo, greeting: "Hälsningar från Lund\n\n— Åsa")
        var times: [Double] = []
        var card = ECardImage.render(content, dpi: 150)
        for _ in 0..<5 {
            let start = ContinuousClock.now
            card = ECardImage.render(content, dpi: 150)
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        times.sort()
        print(
            "e-card A6 150 dpi: \(card.width)×\(card.height) px, \(card.jpeg.count) bytes, median \(Int(times[2])) ms of 5"
        )
        #expect(card.width == 1748 && card.height == 620, "two sides of 874×620 px")
    }

    struct Desk {
        let fixture: PrintingFixture
        let book: ECardStore
        let renderer: ECardRenderer
        let images: ImageLibrary
        let schema: String

        init(_ fixture: PrintingFixture) async throws {
            let logger = PrintingFixture.logger
            let schema = "t_ecards_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            self.schema = schema
            // The event log and the attempts in a schema of the test's own: another suite's claims
            // (which bury expired leases of every kind by their own clock) cannot touch them.
            let events = EventLog(client: fixture.client, schema: schema, clock: fixture.clock, logger: logger)
            try await Migrator(client: fixture.client, schema: schema, logger: logger).migrate(
                EventLog.migrations(schema: schema) + [
                    Migration(
                        version: EventLog.migrations(schema: schema).count + 1, name: "render_jobs",
                        sql: JobQueue.migrationSQL(schema: schema, table: "render_jobs"))
                ])
            var book = ECardStore(
                client: fixture.client,
                queue: JobQueue(
                    client: fixture.client, schema: schema, table: "render_jobs", clock: fixture.clock, logger: logger),
                events: events, publicBaseURL: "https://cards.example.org/v1/ecards/", logger: logger,
                announce: { _ in })
            book.renderAttempts = 2
            book.renderKind = "render_ecard_test_\(UUID())"
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("ecards-\(UUID())")
            images = ImageLibrary(
                client: fixture.client, originals: try OriginalsDirectory(root: root),
                limits: ImageLimits(maxBytes: 1_000_000, maxPixels: 1_000_000), clock: fixture.clock, logger: logger)
            let (wake, _) = AsyncStream.makeStream(of: Void.self)
            var renderer = ECardRenderer(
                store: book, images: images, accounts: AuthClient { _ in "Ann Account" }, wake: wake, logger: logger)
            renderer.dpi = 60
            self.fixture = fixture
            self.book = book
            self.renderer = renderer
        }

        /// `orders.paid` of a new e-card order, handed to the book twice as the consumer would.
        func pay(_ ecard: Orders.EcardDetails, userId: String = UUID().uuidString) async throws
            -> (orderId: String, created: [Bool])
        {
            let orderId = UUID().uuidString
            let order = Orders.OrderEvent(
                orderId: orderId, userId: userId, kind: "ecard", from: "pending", state: "paid",
                at: fixture.clock.now(), reason: nil, total: .init(amount: 99, currency: "EUR"), ecard: ecard)
            let paid = StoredEvent(
                seq: 0, xid: 0, id: UUID(), topic: Orders.Topic.paid, producer: "orders",
                payload: try Wire.makeEncoder().encode(order), requestId: nil, createdAt: fixture.clock.now())
            var created: [Bool] = []
            for _ in 0..<2 {
                created.append(
                    try await fixture.client.withTransaction(logger: PrintingFixture.logger) { connection in
                        try await book.accept(paid, on: connection)
                    })
            }
            return (orderId, created)
        }

        /// The order's e-card: status, token, width, height, reason.
        func card(of orderId: String) async throws -> (String, String, Int?, Int?, String?)? {
            let rows = try await fixture.client.query(
                "SELECT status, token, width, height, reason FROM printing.ecards WHERE order_id = \(orderId)",
                logger: PrintingFixture.logger)
            for try await row in rows.decode((String, String, Int?, Int?, String?).self) { return row }
            return nil
        }

        /// The `printing.ecard_rendered` events of the order.
        func rendered(_ orderId: String) async throws -> [Printing.ECardRendered] {
            try await events(Printing.ECardRendered.topic, of: orderId)
        }

        /// The `printing.ecard_failed` events of the order.
        func failures(_ orderId: String) async throws -> [Printing.JobEvent] {
            try await events(Printing.Topic.ecardFailed, of: orderId)
        }

        /// The payloads of the order's events of `topic` in the test's log, in order.
        func events<Payload: Decodable>(_ topic: String, of orderId: String) async throws -> [Payload] {
            let rows = try await fixture.client.query(
                """
                SELECT payload::text FROM \(unescaped: schema).log
                WHERE topic = \(topic) AND payload->>'orderId' = \(orderId) ORDER BY seq
                """, logger: PrintingFixture.logger)
            var events: [Payload] = []
            for try await text in rows.decode(String.self) {
                events.append(try Wire.makeDecoder().decode(Payload.self, from: Data(text.utf8)))
            }
            return events
        }

        /// Drops the test's event log.
        func drop() async throws {
            try await fixture.client.query("DROP SCHEMA \(unescaped: schema) CASCADE", logger: PrintingFixture.logger)
        }
    }

    @Test(
        "a paid e-card order (with a gallery image of someone else's) becomes one JPEG and one event, served by its token"
    )
    func paidOrderBecomesImage() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-04")) { fixture in
            let desk = try await Desk(fixture)
            let gallery = GalleryTests.handler(desk.images)
            let template = try await gallery.add(
                .init(
                    contentType: "image/png", data: Data(TestImages.png(width: 90, height: 60)).base64EncodedString(),
                    title: "Lund", lat: 55.7, lon: 13.19), actor: GalleryTests.admin)
            let ecard = Orders.EcardDetails(
                imageId: template.imageId, size: "A5", greeting: "Hälsningar från Lund",
                recipients: [.init(name: "Bo", email: "bo@example.invalid"), .init(email: "cy@example.invalid")])
            let (orderId, created) = try await desk.pay(ecard)
            #expect(created == [true, false], "orders.paid handled twice makes one e-card")
            while try await desk.renderer.runOnce() > 0 {}
            let card = try #require(try await desk.card(of: orderId))
            #expect(card.0 == "ready", "\(card)")
            #expect(card.1.count == 43, "256 bits in base64url")
            let (width, height) = (try #require(card.2), try #require(card.3))
            let ratio: Double = Double(width) / Double(height)
            #expect(abs(ratio - 2.0 * 210.0 / 148.0) < 0.01, "two A5 sides: \(width)×\(height)")
            let events = try await desk.rendered(orderId)
            #expect(events.count == 1)
            #expect(events.first?.imageUrl == "https://cards.example.org/v1/ecards/\(card.1)")
            #expect(events.first?.imageToken == card.1)
            #expect(events.first?.senderName == "Ann Account", "the account's name when the order gives none")
            #expect(events.first?.recipients == ["bo@example.invalid", "cy@example.invalid"])
            let image = try await desk.book.image(token: card.1)
            let bytes = try #require(Data(base64Encoded: image.data))
            #expect(image.mediaType == "image/jpeg" && bytes.prefix(2) == Data([0xFF, 0xD8]))
            await #expect(throws: ServiceError.self) { _ = try await desk.book.image(token: String(card.1.reversed())) }
            try await desk.drop()
        }
    }

    @Test(
        "two replicas: the same orders.paid handled at once by two consumers and rendered by two renderers makes one image and one event"
    )
    func twoReplicas() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-04")) { fixture in
            let desk = try await Desk(fixture)
            let order = Orders.OrderEvent(
                orderId: UUID().uuidString, userId: UUID().uuidString, kind: "ecard", from: "pending", state: "paid",
                at: fixture.clock.now(), reason: nil, total: .init(amount: 99, currency: "EUR"),
                ecard: .init(greeting: "Hej", senderName: "Ann", recipients: [.init(email: "dy@example.invalid")]))
            let paid = StoredEvent(
                seq: 0, xid: 0, id: UUID(), topic: Orders.Topic.paid, producer: "orders",
                payload: try Wire.makeEncoder().encode(order), requestId: nil, createdAt: fixture.clock.now())
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        try await fixture.client.withTransaction(logger: PrintingFixture.logger) { connection in
                            try await desk.book.accept(paid, on: connection)
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(created.count == 2 && created.filter { $0 }.count == 1, "one consumer made it: \(created)")
            let claimed = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        var total = 0
                        while case let count = try await desk.renderer.runOnce(), count > 0 { total += count }
                        return total
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(claimed == 1, "one attempt, claimed by one renderer")
            #expect(try await desk.card(of: order.orderId)?.0 == "ready")
            #expect(try await desk.rendered(order.orderId).count == 1)
            try await desk.drop()
        }
    }

    @Test(
        "an e-card whose image is not the buyer's fails after its attempts, with the reason and one printing.ecard_failed (orders refunds)"
    )
    func missingImageFails() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-04")) { fixture in
            let desk = try await Desk(fixture)
            let buyer = UUID().uuidString.lowercased()
            let (orderId, _) = try await desk.pay(
                .init(imageId: UUID().uuidString, senderName: "Ann", recipients: [.init(email: "x@example.invalid")]),
                userId: buyer)
            #expect(try await desk.renderer.runOnce() == 1)
            #expect(try await desk.card(of: orderId)?.0 == "queued", "retried after a back-off")
            fixture.clock.advance(by: 3600)
            #expect(try await desk.renderer.runOnce() == 1)
            let card = try #require(try await desk.card(of: orderId))
            #expect(card.0 == "failed" && card.4?.contains("no such image") == true, "\(card)")
            #expect(try await desk.rendered(orderId).isEmpty)
            let failed = try await desk.failures(orderId)
            #expect(failed.count == 1 && failed.first?.userId == buyer, "\(failed)")
            #expect(failed.first?.reason?.contains("no such image") == true)
            try await desk.book.markFailed(try #require(UUID(uuidString: failed.first?.jobId ?? "")), reason: "again")
            #expect(try await desk.failures(orderId).count == 1, "a card already failed is not failed twice")
            await #expect(throws: ServiceError.self) { _ = try await desk.book.image(token: card.1) }
            try await desk.drop()
        }
    }
}
