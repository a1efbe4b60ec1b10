import Contract
import Foundation
import OrdersContract
import PostgresNIO
import PrintingContract
import Store
import Testing

@testable import PrintingService

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Share pages of sent cards: the page's tags read back by a real parser (Foundation's XML
/// parser: the page is well-formed XHTML-compatible HTML), escaping, and against PostgreSQL the
/// opt-in page of a rendered e-card: owner only, idempotent, never a recipient, revocable.
@Suite("printing: share pages", .serialized)
struct ShareStoreTests {
    /// The `<meta>` tags (by `property` or `name`), the `<title>`, the `<img>` sources and all
    /// text of an HTML page, read with Foundation's XML parser.
    final class PageReader: NSObject, XMLParserDelegate {
        var meta: [String: String] = [:]
        var title = ""
        var images: [String] = []
        var text = ""
        private var inTitle = false

        static func read(_ html: String) throws -> PageReader {
            let reader = PageReader()
            let parser = XMLParser(data: Data(html.utf8))
            parser.delegate = reader
            guard parser.parse() else {
                throw ServiceError(.internal, "not well-formed: \(String(describing: parser.parserError))")
            }
            return reader
        }

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            switch element {
            case "meta":
                if let key = attributes["property"] ?? attributes["name"], let content = attributes["content"] {
                    meta[key] = content
                }
            case "title": inTitle = true
            case "img": images.append(attributes["src"] ?? "")
            default: break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "title" { inTitle = false }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inTitle { title += string }
            text += string
        }
    }

    @Test("the page carries Open Graph and Twitter Card tags with absolute links; every value is escaped")
    func pageTags() throws {
        let page = SharePage(
            pageURL: "https://cards.example.org/s/abc", imageURL: "https://cards.example.org/s/abc/image",
            title: "A <b>card</b> & \"more\"", description: SharePage.description(greeting: "Hej\n\n  från 'Lund' <3"),
            imageWidth: 1166, imageHeight: 413)
        let reader = try PageReader.read(page.html)
        #expect(reader.meta["og:title"] == "A <b>card</b> & \"more\"")
        #expect(reader.title == "A <b>card</b> & \"more\"")
        #expect(reader.meta["og:description"] == "Hej från 'Lund' <3")
        #expect(reader.meta["og:image"] == "https://cards.example.org/s/abc/image")
        #expect(reader.meta["og:url"] == "https://cards.example.org/s/abc")
        #expect(reader.meta["og:type"] == "website" && reader.meta["og:site_name"] == "PostcardBuddy")
        #expect(reader.meta["og:image:width"] == "1166" && reader.meta["og:image:height"] == "413")
        #expect(reader.meta["twitter:card"] == "summary_large_image")
        #expect(reader.meta["twitter:image"] == "https://cards.example.org/s/abc/image")
        #expect(reader.images == ["https://cards.example.org/s/abc/image"])
        #expect(!page.html.contains("<b>"), "markup in a value never reaches the page as markup")
        #expect(SharePage.description(greeting: nil) == "A card sent with PostcardBuddy.")
        #expect(SharePage.description(greeting: String(repeating: "a", count: 500)).count == SharePage.maxDescription)
    }

    /// A rendered e-card of `userId` (lower-case ids, as orders sends them), by the e-card book
    /// and renderer of ``ECardTests``.
    static func renderedEcard(_ desk: ECardTests.Desk, userId: String, delivery: String? = nil) async throws -> String {
        let orderId = UUID().uuidString.lowercased()
        let order = Orders.OrderEvent(
            orderId: orderId, userId: userId, kind: "ecard", from: "pending_payment", state: "paid",
            at: desk.fixture.clock.now(), reason: nil, total: .init(amount: 0, currency: "EUR"),
            ecard: .init(
                greeting: "Hälsningar från Lund", senderName: "Ann", delivery: delivery,
                recipients: [.init(name: "Bo Secretname", email: "bo.secret@example.invalid")]))
        let paid = StoredEvent(
            seq: 0, xid: 0, id: UUID(), topic: Orders.Topic.paid, producer: "orders",
            payload: try Wire.makeEncoder().encode(order), requestId: nil, createdAt: desk.fixture.clock.now())
        _ = try await desk.fixture.client.withTransaction(logger: PrintingFixture.logger) { connection in
            try await desk.book.accept(paid, on: connection)
        }
        return orderId
    }

    @Test(
        "a rendered e-card's page: owner only, 422 before it is sent, the same link twice, no recipient, revoked → 404 for page and image, a new token after"
    )
    func ecardShare() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-04")) { fixture in
            let desk = try await ECardTests.Desk(fixture)
            let shares = ShareHandler(
                store: ShareStore(
                    client: fixture.client, publicBaseURL: "https://cards.example.org/", clock: fixture.clock,
                    logger: PrintingFixture.logger), images: desk.images)
            let ann = Actor(userId: UUID().uuidString.lowercased(), roles: ["user"])
            let orderId = try await Self.renderedEcard(desk, userId: ann.userId)
            let early = await #expect(throws: ServiceError.self) {
                _ = try await shares.share(.init(orderId: orderId), actor: ann)
            }
            #expect(early?.code == .failedPrecondition, "not rendered yet")
            while try await desk.renderer.runOnce() > 0 {}

            let stranger = Actor(userId: UUID().uuidString.lowercased(), roles: ["user"])
            let foreign = await #expect(throws: ServiceError.self) {
                _ = try await shares.share(.init(orderId: orderId), actor: stranger)
            }
            #expect(foreign?.code == .notFound)
            let unknown = await #expect(throws: ServiceError.self) {
                _ = try await shares.share(.init(orderId: "not-an-order"), actor: ann)
            }
            #expect(unknown?.code == .notFound)

            let share = try await shares.share(.init(orderId: orderId), actor: ann)
            let token = String(share.url.dropFirst("https://cards.example.org/s/".count))
            #expect(share.url.hasPrefix("https://cards.example.org/s/") && token.count == 43, "\(share.url)")
            #expect(share.imageUrl == share.url + "/image")
            #expect(try await shares.share(.init(orderId: orderId), actor: ann) == share, "the same link again")

            let page = try await shares.store.page(token: token)
            let reader = try PageReader.read(page.html)
            #expect(reader.meta["og:image"] == share.imageUrl && reader.meta["og:url"] == share.url)
            #expect(reader.meta["og:description"] == "Hälsningar från Lund")
            #expect(!page.html.contains("Secretname") && !page.html.contains("bo.secret"), "no recipient")
            let image = try await shares.store.image(token: token)
            let jpeg = try #require(Data(base64Encoded: image.data))
            #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]))
            #expect(reader.meta["og:image:width"] == "\(try #require(try await desk.card(of: orderId)?.2))")

            try await shares.unshare(.init(orderId: orderId), actor: stranger)  // not theirs: nothing happens
            #expect(try await shares.store.page(token: token).pageURL == share.url)
            try await shares.unshare(.init(orderId: orderId), actor: ann)
            try await shares.unshare(.init(orderId: orderId), actor: ann)  // idempotent
            let gone = await #expect(throws: ServiceError.self) { _ = try await shares.store.page(token: token) }
            #expect(gone?.code == .notFound)
            let goneImage = await #expect(throws: ServiceError.self) { _ = try await shares.store.image(token: token) }
            #expect(goneImage?.code == .notFound)
            let again = try await shares.share(.init(orderId: orderId), actor: ann)
            #expect(again.url != share.url, "a new token after a revocation")
            try await desk.drop()
        }
    }

    @Test(
        "an e-card the phone sends itself: printing.ecard_ready carries its link for orders, and no printing.ecard_rendered goes to notify"
    )
    func deviceDelivery() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-04")) { fixture in
            let desk = try await ECardTests.Desk(fixture)
            let device = try await Self.renderedEcard(desk, userId: UUID().uuidString.lowercased(), delivery: "device")
            let mailed = try await Self.renderedEcard(desk, userId: UUID().uuidString.lowercased())
            while try await desk.renderer.runOnce() > 0 {}
            let token = try #require(try await desk.card(of: device)?.1)
            let ready: [Printing.JobEvent] = try await desk.events(Printing.Topic.ecardReady, of: device)
            #expect(ready.map(\.imageUrl) == ["https://cards.example.org/v1/ecards/\(token)"])
            #expect(try await desk.rendered(device).isEmpty, "no mail")
            let mailedReady: [Printing.JobEvent] = try await desk.events(
                Printing.Topic.ecardReady, of: mailed)
            #expect(mailedReady.count == 1)
            #expect(try await desk.rendered(mailed).count == 1, "the server mails the default delivery")
            try await desk.drop()
        }
    }

    @Test(
        "a postcard's page once it is mailed (422 while it is only rendered): its front and greeting drawn, no recipient or address in the page"
    )
    func postcardShare() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-05-04")) { fixture in
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("shares-\(UUID())")
            let images = ImageLibrary(
                client: fixture.client, originals: try OriginalsDirectory(root: root),
                limits: ImageLimits(maxBytes: 1_000_000, maxPixels: 1_000_000), clock: fixture.clock,
                logger: PrintingFixture.logger)
            let shares = ShareHandler(
                store: ShareStore(
                    client: fixture.client, publicBaseURL: "https://cards.example.org", clock: fixture.clock,
                    logger: PrintingFixture.logger), images: images)
            let ann = Actor(userId: UUID().uuidString.lowercased(), roles: ["user"])
            let orderId = UUID().uuidString.lowercased()
            let postcard = Orders.PostcardDetails(
                size: "A6", greeting: "Greetings from Lund",
                recipients: [
                    .init(
                        name: "Bo Hiddenname",
                        address: .init(line1: "Hemligvägen 7", city: "Lund", postalCode: "22350", country: "SE"))
                ])
            let document = String(decoding: try Wire.makeEncoder().encode(postcard), as: UTF8.self)
            try await fixture.client.query(
                """
                INSERT INTO printing.print_jobs (id, order_id, user_id, status, cards, postcard, created_at, updated_at)
                VALUES (\(UUID()), \(orderId), \(ann.userId), 'ready', 1, \(document)::text::jsonb, now(), now())
                """, logger: PrintingFixture.logger)
            let early = await #expect(throws: ServiceError.self) {
                _ = try await shares.share(.init(orderId: orderId), actor: ann)
            }
            #expect(early?.code == .failedPrecondition)
            try await fixture.client.query(
                "UPDATE printing.print_jobs SET status = 'mailed' WHERE order_id = \(orderId)",
                logger: PrintingFixture.logger)
            let share = try await shares.share(.init(orderId: orderId), actor: ann)
            let token = String(share.url.dropFirst("https://cards.example.org/s/".count))
            let page = try await shares.store.page(token: token)
            let reader = try PageReader.read(page.html)
            #expect(reader.meta["og:title"] == "A postcard from PostcardBuddy")
            #expect(reader.meta["og:description"] == "Greetings from Lund")
            for secret in ["Hiddenname", "Hemligvägen", "22350", orderId] {
                #expect(!page.html.contains(secret), "never \(secret)")
            }
            let jpeg = try #require(Data(base64Encoded: try await shares.store.image(token: token).data))
            #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]))
            #expect(page.imageWidth == 2 * 583 && page.imageHeight == 413, "A6 at 100 dpi, front and greeting side")
        }
    }
}
