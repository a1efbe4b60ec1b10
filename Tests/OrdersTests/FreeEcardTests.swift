import CommonContract
import Contract
import Foundation
import OrdersContract
import PostgresNIO
import PrintingContract
import ServiceKit
import Store
import Testing

@testable import OrdersService

/// E-cards as PostcardBuddy's spec has them: free by default (only printed postcards are paid
/// for) and never sent to the card processor when free, quoted with `kind`, and sent either by
/// the server's mail or from the phone's own mail app (`delivery` `device`).
@Suite("orders: free e-cards, e-card quotes and delivery from the phone (PostgreSQL)")
struct FreeEcardTests {
    static let ecard = Orders.EcardDetails(
        greeting: "Hälsningar från Lund", senderName: "Ann", recipients: [.init(name: "Bo", email: "bo@example.org")])

    /// The error code and `details.field` of what `work` throws.
    func refusal(_ work: () async throws -> Void) async -> (ErrorCode, String?)? {
        do {
            try await work()
            return nil
        } catch let error as ServiceError {
            if case .string(let field) = error.details?["field"] { return (error.code, field) }
            return (error.code, nil)
        } catch {
            return (.internal, "\(error)")
        }
    }

    @Test("ECARD_PRICE is 0 unless set; zero parses, a negative or malformed price is refused")
    func priceSetting() throws {
        let defaults = try OrdersService.Configuration(ProcessEnvironment([:]))
        #expect(defaults.pricing.prices.ecard.isFree)
        #expect(try PriceList(parsing: "A6=1,A5=2,A4=3", ecard: "0.00").ecard.isFree)
        #expect(try !PriceList(parsing: "A6=1,A5=2,A4=3", ecard: "0.99").ecard.isFree)
        for bad in ["-1", "abc", "", "."] {
            #expect(throws: ServiceError.self) { try PriceList(parsing: "A6=1,A5=2,A4=3", ecard: bad) }
        }
    }

    @Test(
        "a free e-card goes through the payment phases without one processor call: paid, total 0, no ledger row, no money step on cancel, the same answer again"
    )
    func freeEcardNeverReachesTheProcessor() async throws {
        try await OrdersFixture.with(settings: [:]) { db in
            let probing = ProbingProvider(sandbox: db.sandbox, client: db.client)
            let handlers = db.handlers(provider: probing)
            let ann = db.user()
            let card = try await db.card(for: ann)
            let order = KeyedOrder(
                idempotencyKey: UUID().uuidString, kind: "ecard", ecard: Self.ecard, currency: "SEK",
                paymentMethodId: card)
            let placed = try await handlers.placement.place(order, actor: ann, requestId: "t")
            #expect(placed.state == "paid")
            #expect(placed.total == Money(amount: 0, currency: "SEK"))
            #expect(probing.seen.withLock { $0 }.isEmpty, "no authorize, capture or charge of 0 was sent")
            #expect(try await db.ledger(placed.id).movements.isEmpty)
            #expect(try await db.events(placed.id).contains(Orders.Topic.paid), "printing still renders it")
            let detail = try await handlers.history.detail(placed.id, actor: ann)
            #expect(detail.lines.map(\.kind) == ["ecard"] && detail.lines[0].unitAmount == 0)
            #expect(try await handlers.placement.place(order, actor: ann, requestId: "t") == placed, "the key answers the same")
            _ = try await handlers.transitions.cancel(placed.id, actor: ann, requestId: "t")
            #expect(try await handlers.history.detail(placed.id, actor: ann).state == "canceled")
            #expect(probing.seen.withLock { $0 }.isEmpty, "nothing to void or refund")
            #expect(try await db.ledger(placed.id).movements.isEmpty)
        }
    }

    @Test("a priced e-card (ECARD_PRICE=0.99) is still authorized and captured at once")
    func pricedEcardIsCharged() async throws {
        try await OrdersFixture.with(settings: ["ECARD_PRICE": "0.99"]) { db in
            let probing = ProbingProvider(sandbox: db.sandbox, client: db.client)
            let handlers = db.handlers(provider: probing)
            let ann = db.user()
            let placed = try await handlers.placement.place(
                KeyedOrder(
                    idempotencyKey: UUID().uuidString, kind: "ecard", ecard: Self.ecard, currency: "EUR",
                    paymentMethodId: try await db.card(for: ann)), actor: ann, requestId: "t")
            #expect(placed.total == Money(amount: 99, currency: "EUR"))
            #expect(probing.seen.withLock { $0 } == ["authorize pending_payment", "capture pending_payment"])
            #expect(try await db.ledger(placed.id).movements == ["authorize": 1, "capture": 2])
        }
    }

    @Test(
        "quotes take kind: an e-card quote has only e-card lines (free by default); a postcard quote needs size and countries; a size is A6, A5 or A4"
    )
    func quotes() async throws {
        for (settings, unit) in [([String: String](), Int64(0)), (["ECARD_PRICE": "0.99"], Int64(99))] {
            try await OrdersFixture.with(settings: settings) { db in
                let metadata = RequestMetadata(requestId: "t")
                let ecard = try await db.quoting.quote(
                    .init(kind: "ecard", size: nil, recipients: [.init(country: nil), .init(country: "SE")]),
                    actor: nil, metadata: metadata)
                #expect(ecard.lines.map(\.kind) == ["ecard"])
                #expect(ecard.lines[0].quantity == 2 && ecard.lines[0].unitAmount == unit)
                #expect(ecard.total == Money(amount: 2 * unit, currency: "EUR"))
                let postcard = try await db.quoting.quote(
                    .init(size: "A6", recipients: [.init(country: "SE")]), actor: nil, metadata: metadata)
                #expect(Set(postcard.lines.map(\.kind)) == ["printing", "postage"], "postcard is the default kind")
                let noSize = await refusal {
                    _ = try await db.quoting.quote(
                        .init(size: nil, recipients: [.init(country: "SE")]), actor: nil, metadata: metadata)
                }
                #expect(noSize?.0 == .invalidArgument && noSize?.1 == "size")
                let noCountry = await refusal {
                    _ = try await db.quoting.quote(
                        .init(size: "A6", recipients: [.init(country: nil)]), actor: nil, metadata: metadata)
                }
                #expect(noCountry?.0 == .invalidArgument && noCountry?.1 == "recipients[0].country")
                let gift = await refusal {
                    _ = try await db.quoting.quote(
                        .init(kind: "gift", size: nil, recipients: [.init(country: nil)]), actor: nil,
                        metadata: metadata)
                }
                #expect(gift?.0 == .invalidArgument && gift?.1 == "kind")
                let none = await refusal {
                    _ = try await db.quoting.quote(
                        .init(kind: "ecard", size: nil, recipients: []), actor: nil, metadata: metadata)
                }
                #expect(none?.0 == .invalidArgument && none?.1 == "recipients")
                let badSize = await refusal {
                    _ = try await db.quoting.quote(
                        .init(kind: "ecard", size: "a5*", recipients: [.init(country: nil)]), actor: nil,
                        metadata: metadata)
                }
                #expect(badSize?.0 == .invalidArgument && badSize?.1 == "size", "unused by an e-card, but checked")
            }
        }
    }

    @Test(
        "delivery device: the answer carries a share text, the rendered link arrives with printing.ecard_ready; email orders carry none; an unknown delivery is a 400"
    )
    func deliveryFromThePhone() async throws {
        try await OrdersFixture.with(settings: [:]) { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            var details = Self.ecard
            details.delivery = "DEVICE"
            let placed = try await db.handlers.placement.place(
                KeyedOrder(
                    idempotencyKey: UUID().uuidString, kind: "ecard", ecard: details, currency: "EUR",
                    paymentMethodId: card), actor: ann, requestId: "t")
            let device = try #require(placed.deviceEcard)
            #expect(device.delivery == "device" && device.imageUrl == nil)
            #expect(device.shareText.contains("Ann") && device.shareText.contains("Hälsningar från Lund"))
            #expect(!device.shareText.contains("bo@example.org"), "the phone knows whom it writes to")
            #expect(try await db.handlers.history.detail(placed.id, actor: ann).ecard?.delivery == "device")
            #expect(try await db.handlers.history.detail(placed.id, actor: ann).deviceEcard?.imageUrl == nil)

            let link = "https://cards.example.org/v1/ecards/\(String(repeating: "x", count: 43))"
            let payload = try Wire.makeEncoder().encode(
                Printing.JobEvent(orderId: placed.id, jobId: UUID().uuidString, imageUrl: link))
            let event = StoredEvent(
                seq: 0, xid: 0, id: UUID(), topic: Printing.Topic.ecardReady, producer: "printing",
                payload: payload, requestId: nil, createdAt: db.clock.now())
            try await db.client.withTransaction(logger: OrdersFixture.logger) { connection in
                try await db.handlers.printingEvents.apply(event, in: Transaction(connection: connection, logger: OrdersFixture.logger))
            }
            let rendered = try await db.handlers.history.detail(placed.id, actor: ann)
            #expect(rendered.deviceEcard?.imageUrl == link)
            #expect(rendered.deviceEcard?.shareText.hasSuffix(link) == true)
            #expect(rendered.state == "paid", "the link moves no state")

            let mailed = try await db.handlers.placement.place(
                KeyedOrder(
                    idempotencyKey: UUID().uuidString, kind: "ecard", ecard: Self.ecard, currency: "EUR",
                    paymentMethodId: card), actor: ann, requestId: "t")
            #expect(mailed.deviceEcard == nil)
            #expect(try await db.handlers.history.detail(mailed.id, actor: ann).deviceEcard == nil)

            details.delivery = "pigeon"
            let bad = await refusal {
                _ = try await db.handlers.placement.place(
                    KeyedOrder(
                        idempotencyKey: UUID().uuidString, kind: "ecard", ecard: details, currency: "EUR",
                        paymentMethodId: card), actor: ann, requestId: "t")
            }
            #expect(bad?.0 == .invalidArgument && bad?.1 == "ecard.delivery")
        }
    }
}
