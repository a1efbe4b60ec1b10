import CommonContract
import Contract
import Foundation
import OrdersContract
import PostgresNIO
import PrintingContract
import Testing

@testable import OrdersService

/// Free e-cards by buyers with no card on file, and the daily cap on their recipients, against
/// PostgreSQL: the order's states, ledger, sweeper and refunds, and the cap's count.
@Suite("orders: free e-cards without a card, and the daily cap on their recipients (PostgreSQL)")
struct FreeEcardNoCardTests {
    static func ecard(_ emails: [String]) -> Orders.EcardDetails {
        Orders.EcardDetails(greeting: "Hej", senderName: "Ann", recipients: emails.map { .init(email: $0) })
    }

    static func order(_ emails: [String], key: String = UUID().uuidString, card: String? = nil) -> KeyedOrder {
        KeyedOrder(
            idempotencyKey: key, kind: "ecard", ecard: ecard(emails), currency: "EUR", paymentMethodId: card)
    }

    /// The error `work` throws, as a `ServiceError` (nil when it does not throw one).
    static func refusal(_ work: () async throws -> Void) async -> ServiceError? {
        do {
            try await work()
            return nil
        } catch let error as ServiceError {
            return error
        } catch {
            return ServiceError(.internal, "\(error)")
        }
    }

    /// The order's stored card id and payment fields.
    static func row(_ db: OrdersFixture, _ id: String) async throws -> (card: UUID?, authorization: String?, due: Date?) {
        let rows = try await db.client.query(
            """
            SELECT payment_method_id, authorization_id, payment_due_at FROM orders.orders
            WHERE id = \(UUID(uuidString: id)!)
            """, logger: OrdersFixture.logger)
        for try await row in rows.decode((UUID?, String?, Date?).self) { return row }
        throw ServiceError.notFound("order \(id)")
    }

    @Test(
        "no card on file: a free e-card is paid at 0 with no card and no processor call; the sweeper, a refund, a cancel and a failed render move no money"
    )
    func withoutCard() async throws {
        try await OrdersFixture.with(settings: [:]) { db in
            let probing = ProbingProvider(sandbox: db.sandbox, client: db.client)
            let handlers = db.handlers(provider: probing)
            let ann = db.user()
            let admin = db.user(roles: ["admin"])
            let order = Self.order(["bo@example.org", "cy@example.org"])
            let placed = try await handlers.placement.place(order, actor: ann, requestId: "t")
            #expect(placed.state == "paid" && placed.total == Money(amount: 0, currency: "EUR"))
            #expect(try await handlers.placement.place(order, actor: ann, requestId: "t") == placed, "the key answers the same")
            let stored = try await Self.row(db, placed.id)
            #expect(stored.card == nil && stored.authorization == nil && stored.due == nil, "\(stored)")
            let detail = try await handlers.history.detail(placed.id, actor: ann)
            #expect(detail.paymentMethod == nil && detail.history.map(\.state) == ["pending_payment", "paid"])
            #expect(try await db.events(placed.id).contains(Orders.Topic.paid), "printing renders and mails it")
            #expect(try await db.ledger(placed.id).movements.isEmpty)

            // The settler finds nothing due (only this order: other suites' orders share the database).
            db.clock.advance(by: 3_600)
            try await handlers.payments.settle(UUID(uuidString: placed.id)!)
            let refund = await Self.refusal {
                _ = try await handlers.refunds.refund(.init(id: placed.id), idempotencyKey: UUID().uuidString, actor: admin)
            }
            #expect(refund?.code == .failedPrecondition, "nothing was captured: \(String(describing: refund))")
            try await db.printing(Printing.Topic.ecardFailed, order: placed.id, reason: "render failed")
            try await handlers.payments.settle(UUID(uuidString: placed.id)!)
            #expect(try await handlers.history.detail(placed.id, actor: ann).state == "failed", "no refund owed, none made")
            #expect(probing.seen.withLock { $0 }.isEmpty, "the processor was never called")
            #expect(try await db.ledger(placed.id).movements.isEmpty)

            let canceled = try await handlers.placement.place(Self.order(["dan@example.org"]), actor: ann, requestId: "t")
            #expect(try await handlers.transitions.cancel(canceled.id, actor: ann, requestId: "t").state == "canceled")
            #expect(probing.seen.withLock { $0 }.isEmpty)
            #expect(try await db.ledger(canceled.id).movements.isEmpty)

            // A card named anyway must be the buyer's; it is never charged.
            let unknown = await Self.refusal {
                _ = try await handlers.placement.place(Self.order(["eve@example.org"], card: UUID().uuidString), actor: ann, requestId: "t")
            }
            #expect(unknown?.code == .notFound && unknown?.details?["field"] == .string("paymentMethodId"))
            let withCard = try await handlers.placement.place(
                Self.order(["eve@example.org"], card: try await db.card(for: ann)), actor: ann, requestId: "t")
            #expect(withCard.state == "paid" && probing.seen.withLock { $0 }.isEmpty)
            #expect(try await handlers.history.detail(withCard.id, actor: ann).paymentMethod?.last4 == "4242")
        }
    }

    @Test("an order that costs money without a card is a 400 naming paymentMethodId, and leaves its key unused")
    func pricedNeedsCard() async throws {
        try await OrdersFixture.with(settings: ["ECARD_PRICE": "0.99"]) { db in
            let ann = db.user()
            let key = UUID().uuidString
            for request in [Self.order(["bo@example.org"], key: key), db.postcard(key: key, card: "")] {
                var request = request
                request.paymentMethodId = nil
                let refused = await Self.refusal { _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t") }
                #expect(refused?.code == .invalidArgument, "\(request.kind): \(String(describing: refused))")
                #expect(refused?.details?["field"] == .string("paymentMethodId"))
            }
            let card = try await db.card(for: ann)
            let placed = try await db.handlers.placement.place(
                Self.order(["bo@example.org"], key: key, card: card), actor: ann, requestId: "t")
            #expect(placed.state == "paid" && placed.total.amount == 99, "the key was free for the paid order")
            let many = (0..<25).map { "r\($0)@example.org" }
            let again = try await db.handlers.placement.place(Self.order(many, card: card), actor: ann, requestId: "t").total
            #expect(again.amount == 25 * 99, "priced e-cards have no daily cap")
        }
    }

    @Test(
        "the cap counts today's free e-card recipients per account: past it a 429 with Retry-After to midnight UTC and the key unused; others and tomorrow are free again"
    )
    func dailyCap() async throws {
        try await OrdersFixture.with(settings: ["FREE_ECARD_RECIPIENTS_PER_DAY": "3"]) { db in
            #expect(db.handlers.placement.freeEcards.recipientsPerDay == 3)
            let ann = db.user()
            let first = Self.order(["a@example.org", "b@example.org"])
            let placed = try await db.handlers.placement.place(first, actor: ann, requestId: "t")
            #expect(placed.state == "paid")
            let canceled = try await db.handlers.placement.place(Self.order(["c@example.org"]), actor: ann, requestId: "t")
            _ = try await db.handlers.transitions.cancel(canceled.id, actor: ann, requestId: "t")

            let key = UUID().uuidString
            let over = await Self.refusal {
                _ = try await db.handlers.placement.place(Self.order(["d@example.org"], key: key), actor: ann, requestId: "t")
            }
            let midnight = FreeEcardAllowance.day(containing: db.clock.now()).end
            let expected = Int(midnight.timeIntervalSince(db.clock.now()).rounded(.up))
            #expect(over?.code == .rateLimited && over?.code.httpStatus == 429, "\(String(describing: over))")
            #expect(over?.retryAfterSeconds == max(1, expected))
            #expect(over?.details?["reason"] == .string(FreeEcardAllowance.reason))
            #expect(over?.details?["sentToday"] == .number(3), "a canceled card was sent all the same")
            #expect(over?.details?["limit"] == .number(3))
            #expect(try await db.handlers.placement.place(first, actor: ann, requestId: "t") == placed, "a retry still answers")

            let bo = db.user()
            #expect(try await db.handlers.placement.place(Self.order(["x@example.org", "y@example.org"]), actor: bo, requestId: "t").state == "paid")
            let boOver = await Self.refusal {
                _ = try await db.handlers.placement.place(Self.order(["p@example.org", "q@example.org"]), actor: bo, requestId: "t")
            }
            #expect(boOver?.details?["sentToday"] == .number(2) && boOver?.details?["requested"] == .number(2))

            db.clock.set(midnight)
            let tomorrow = try await db.handlers.placement.place(Self.order(["d@example.org"], key: key), actor: ann, requestId: "t")
            #expect(tomorrow.state == "paid", "a new day, and the refused key was never used")
            let rows = try await db.client.query(
                "SELECT count(*) FROM orders.orders WHERE user_id = \(UUID(uuidString: ann.userId)!)",
                logger: OrdersFixture.logger)
            for try await count in rows.decode(Int64.self) { #expect(count == 3, "no order for a refusal") }
        }
    }

    @Test("orders placed at once by one account never pass the cap together")
    func concurrent() async throws {
        try await OrdersFixture.with(settings: ["FREE_ECARD_RECIPIENTS_PER_DAY": "4"]) { db in
            let ann = db.user()
            let outcomes = try await withThrowingTaskGroup(of: ErrorCode?.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let refused = await Self.refusal {
                            _ = try await db.handlers.placement.place(
                                Self.order(["n\(index)@example.org"]), actor: ann, requestId: "t")
                        }
                        return refused?.code
                    }
                }
                var outcomes: [ErrorCode?] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0 == nil }.count == 4, "\(outcomes)")
            #expect(outcomes.filter { $0 == .rateLimited }.count == 6, "\(outcomes)")
        }
    }
}
