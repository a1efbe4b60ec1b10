import CommonContract
import Contract
import Foundation
import OrdersContract
import PostgresNIO
import PrintingContract
import Store
import Testing

@testable import PrintingService

/// Print jobs from `orders.paid` against the real PostgreSQL: one job per order, its PDF read
/// back with `pdfinfo`, and the job events in the event log. Render attempts made here have a kind
/// of their own and a clock in 2099, so a printing process of another suite on the same database
/// neither claims them nor takes their leases for expired.
@Suite("printing: print jobs from paid orders", .serialized)
struct PrintJobTests {
    /// The caller of the printer's operations.
    static let printer = Actor(userId: UUID().uuidString, roles: ["printer"])

    /// A book, a renderer and a clock over the fixture's database, with render attempts `attempts`.
    struct Desk {
        let fixture: PrintingFixture
        let book: PrintJobStore
        let renderer: PrintJobRenderer
        let images: ImageLibrary

        init(_ fixture: PrintingFixture, attempts: Int) async throws {
            let logger = PrintingFixture.logger
            let events = EventLog(client: fixture.client, clock: fixture.clock, logger: logger)
            try await events.migrate()
            var book = PrintJobStore(
                client: fixture.client,
                queue: JobQueue(
                    client: fixture.client, schema: "printing", table: "render_jobs", clock: fixture.clock,
                    logger: logger),
                events: events, logger: logger, announce: { _ in })
            book.renderAttempts = attempts
            book.renderKind = "render_print_job_test_\(UUID())"
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("printjobs-\(UUID())")
            let images = ImageLibrary(
                client: fixture.client,
                originals: try OriginalsDirectory(root: root.appendingPathComponent("originals")),
                limits: ImageLimits(maxBytes: 1_000_000, maxPixels: 1_000_000), clock: fixture.clock, logger: logger)
            let (wake, _) = AsyncStream.makeStream(of: Void.self)
            self.fixture = fixture
            self.book = book
            self.images = images
            self.renderer = PrintJobRenderer(
                store: book, cards: PrintJobCards(images: images, postage: fixture.desk),
                files: try PrintJobFiles(
                    root: root.appendingPathComponent("jobs"), hotFolder: root.appendingPathComponent("hot")),
                wake: wake, logger: logger)
        }

        /// Makes `orders.paid` for a new order and hands it to the book twice, as the consumer does.
        func pay(
            kind: String = "postcard", recipients: Int, imageId: String? = nil, userId: String = UUID().uuidString,
            edits: [JSONValue]? = nil
        ) async throws -> (orderId: String, accepted: StoredEvent?, again: StoredEvent?) {
            let orderId = UUID().uuidString
            let recipient = PostalRecipient(
                name: "Åsa Öberg",
                address: .init(line1: "Storgatan 1", city: "Lund", postalCode: "223 50", country: "SE"))
            let postcard = Orders.PostcardDetails(
                size: "A6", imageId: imageId, edits: edits, greeting: "Hälsningar från Lund",
                recipients: Array(repeating: recipient, count: recipients))
            let order = Orders.OrderEvent(
                orderId: orderId, userId: userId, kind: kind, from: "pending", state: "paid",
                at: fixture.clock.now(), reason: nil, total: .init(amount: 190, currency: "EUR"),
                postcard: kind == "postcard" ? postcard : nil)
            // Handed over directly, never appended to the shared log, so that a printing process of
            // another suite running meanwhile does not take the order first.
            let paid = StoredEvent(
                seq: 0, xid: 0, id: UUID(), topic: Orders.Topic.paid, producer: "orders",
                payload: try Wire.makeEncoder().encode(order), requestId: nil, createdAt: fixture.clock.now())
            let accept = {
                try await fixture.client.withTransaction(logger: PrintingFixture.logger) { connection in
                    try await book.accept(paid, on: connection)
                }
            }
            let accepted = try await accept()
            return (orderId, accepted, try await accept())
        }

        /// The order's job: status, cards, PDF file name and reason.
        func job(of orderId: String) async throws -> (String, Int, String?, String?)? {
            let rows = try await fixture.client.query(
                "SELECT status, cards, pdf_file, reason FROM printing.print_jobs WHERE order_id = \(orderId)",
                logger: PrintingFixture.logger)
            for try await (status, cards, file, reason) in rows.decode((String, Int, String?, String?).self) {
                return (status, cards, file, reason)
            }
            return nil
        }

        /// The topics printing published for the order, in log order.
        func topics(of orderId: String) async throws -> [String] {
            let rows = try await fixture.client.query(
                """
                SELECT topic FROM events.log WHERE producer = 'printing' AND payload->>'orderId' = \(orderId)
                ORDER BY seq
                """, logger: PrintingFixture.logger)
            var topics: [String] = []
            for try await topic in rows.decode(String.self) { topics.append(topic) }
            return topics
        }

        /// Runs render attempts until none is due.
        func renderAll() async throws {
            while try await renderer.runOnce() > 0 {}
        }
    }

    @Test(
        "a paid postcard order becomes one ready job: one PDF (also in the hot folder), two pages per recipient, accepted then ready"
    )
    func paidOrderBecomesReady() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-04")) { fixture in
            let desk = try await Desk(fixture, attempts: 3)
            let (orderId, accepted, again) = try await desk.pay(recipients: 3)
            #expect(accepted?.topic == Printing.Topic.jobAccepted)
            #expect(again == nil, "orders.paid seen twice must not make a second job")
            #expect(try await desk.job(of: orderId)?.0 == "queued")
            try await desk.renderAll()
            let job = try #require(try await desk.job(of: orderId))
            #expect(job.0 == "ready")
            #expect(job.1 == 3)
            let pdf = try desk.renderer.files.read(try #require(job.2))
            let hot = try #require(desk.renderer.files.hotFolder).appendingPathComponent(try #require(job.2))
            #expect(try Data(contentsOf: hot) == pdf, "the hot folder holds the same PDF")
            let info = try RenderingTests().poppler("pdfinfo", [], pdf: [UInt8](pdf))
            #expect(info.contains("Pages:           6"))
            let text = try RenderingTests().poppler("pdftotext", [], pdf: [UInt8](pdf))
            #expect(text.components(separatedBy: "Åsa Öberg").count - 1 == 3)
            #expect(try await desk.topics(of: orderId) == [Printing.Topic.jobAccepted, Printing.Topic.jobReady])
        }
    }

    @Test("a job renders its order's edits: the text edit is text on the front page, the grayscale front is grey")
    func jobRendersEdits() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-06")) { fixture in
            let desk = try await Desk(fixture, attempts: 3)
            let owner = UUID().uuidString
            let upload = TestImages.jpeg(width: 600, height: 400)
            let image = try await desk.images.upload(
                .init(contentType: "image/jpeg", data: Data(upload).base64EncodedString()),
                actor: Actor(userId: owner, roles: ["user"]))
            let edits = try JSONDecoder().decode(
                [JSONValue].self,
                from: Data(
                    #"""
                    [{"type": "crop", "x": 0.1, "y": 0.1, "width": 0.8, "height": 0.8},
                     {"type": "filter", "name": "grayscale"},
                     {"type": "text", "text": "Sjön i Lund", "x": 0.1, "y": 0.4, "size": 0.1, "color": "#ffffff"}]
                    """#.utf8))
            let (orderId, _, _) = try await desk.pay(recipients: 1, imageId: image.id, userId: owner, edits: edits)
            try await desk.renderAll()
            let job = try #require(try await desk.job(of: orderId))
            #expect(job.0 == "ready", "\(job.3 ?? "")")
            let pdf = [UInt8](try desk.renderer.files.read(try #require(job.2)))
            let front = try RenderingTests().poppler("pdftotext", ["-f", "1", "-l", "1"], pdf: pdf)
            #expect(front.contains("Sjön i Lund"), "\(front)")
            let page = try EditPixelTests.rasterise(pdf)
            var coloured = 0
            for y in stride(from: 10, to: page.height - 10, by: 11) {
                for x in stride(from: 10, to: page.width - 10, by: 11) {
                    let (red, green, blue) = EditPixelTests.pixel(page, x, y)
                    if max(red, green, blue) - min(red, green, blue) > 24 { coloured += 1 }
                }
            }
            #expect(coloured == 0, "the noise photo printed grey, \(coloured) coloured samples")
        }
    }

    @Test("the printer's counts per UTC day and status, computed by the server over the days asked")
    func countsPerDay() async throws {
        // A day no other suite's jobs fall on: the database is shared.
        try await PrintingFixture.with(at: PrintingFixture.noon("2113-03-10")) { fixture in
            let desk = try await Desk(fixture, attempts: 3)
            let jobs = PrintJobHandler(store: desk.book, cards: desk.renderer.cards, files: desk.renderer.files)
            let first = try await desk.pay(recipients: 1).orderId
            _ = try await desk.pay(recipients: 3)
            fixture.clock.advance(by: 11 * 3600 + 59 * 60)  // 23:59 on the 10th
            _ = try await desk.pay(recipients: 2)
            fixture.clock.advance(by: 120)  // 00:01 on the 11th
            _ = try await desk.pay(recipients: 4)
            try await fixture.client.query(
                "UPDATE printing.print_jobs SET status = 'printed' WHERE order_id = \(first)",
                logger: PrintingFixture.logger)

            let two = try await jobs.counts(.init(days: 2), printer: Self.printer)
            #expect(two.from == "2113-03-10" && two.to == "2113-03-11")
            #expect(
                two.counts == [
                    .init(day: "2113-03-11", status: "queued", jobs: 1, cards: 4),
                    .init(day: "2113-03-10", status: "queued", jobs: 2, cards: 5),
                    .init(day: "2113-03-10", status: "printed", jobs: 1, cards: 1),
                ])
            let today = try await jobs.counts(.init(days: 1), printer: Self.printer)
            #expect(today.from == "2113-03-11" && today.counts.map(\.jobs) == [1])
            let fortnight = try await jobs.counts(.init(), printer: Self.printer)
            #expect(fortnight.from == "2113-02-26" && fortnight.counts == two.counts)
            for days in [0, -1, 367] {
                await #expect(throws: ServiceError.self) {
                    _ = try await jobs.counts(.init(days: days), printer: Self.printer)
                }
            }
        }
    }

    @Test(
        "the printer's list comes a page at a time: every job once, oldest first, also while jobs are queued between pages"
    )
    func listPages() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-06")) { fixture in
            let desk = try await Desk(fixture, attempts: 3)
            let jobs = PrintJobHandler(store: desk.book, cards: desk.renderer.cards, files: desk.renderer.files)
            var mine: [String] = []
            for _ in 0..<3 { mine.append(try await desk.pay(recipients: 1).orderId) }
            #expect(mine.count == 3)
            var seen: [Printing.PrintJob] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await jobs.list(.init(cursor: cursor, limit: 2), printer: Self.printer)
                #expect(page.items.count <= 2)
                seen += page.items
                cursor = page.nextCursor
                pages += 1
                if pages == 1 { _ = try await desk.pay(recipients: 1) }
            } while cursor != nil && pages < 10_000
            #expect(Set(seen.map(\.id)).count == seen.count, "no job twice, though one was queued between pages")
            #expect(Set(seen.map(\.orderId)).isSuperset(of: mine), "every job")
            #expect(seen.map(\.createdAt) == seen.map(\.createdAt).sorted(), "oldest first")
            await #expect(throws: ServiceError.self) {
                _ = try await jobs.list(.init(cursor: "not-ours"), printer: Self.printer)
            }
            await #expect(throws: ServiceError.self) {
                _ = try await jobs.list(.init(limit: 501), printer: Self.printer)
            }
        }
    }

    @Test("e-card and other orders make no print job")
    func otherOrdersMakeNoJob() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-04")) { fixture in
            let desk = try await Desk(fixture, attempts: 3)
            let (orderId, accepted, _) = try await desk.pay(kind: "ecard", recipients: 1)
            #expect(accepted == nil)
            #expect(try await desk.job(of: orderId) == nil)
            #expect(try await desk.topics(of: orderId).isEmpty)
        }
    }

    @Test("a job that cannot render is retried with back-off, then failed with a reason and job_failed")
    func failingJobFailsAfterItsAttempts() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-05")) { fixture in
            let desk = try await Desk(fixture, attempts: 3)
            let (orderId, _, _) = try await desk.pay(recipients: 1, imageId: UUID().uuidString)
            try await desk.renderAll()
            #expect(try await desk.job(of: orderId)?.0 == "queued", "one failure: retried later, not failed")
            #expect(try await desk.renderer.runOnce() == 0, "the retry waits for its back-off")
            for _ in 0..<2 {
                fixture.clock.advance(by: 3_600)
                try await desk.renderAll()
            }
            let job = try #require(try await desk.job(of: orderId))
            #expect(job.0 == "failed")
            #expect(job.3?.contains("no such image") == true, "reason: \(job.3 ?? "none")")
            #expect(
                try await desk.topics(of: orderId) == [
                    Printing.Topic.jobAccepted, Printing.Topic.jobFailed,
                ])
        }
    }
}
