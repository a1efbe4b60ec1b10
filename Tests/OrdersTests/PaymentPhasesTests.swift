import Contract
import Foundation
import OrdersContract
import PostgresNIO
import PrintingContract
import Store
import Synchronization
import Testing

@testable import OrdersService

/// Placing an order in phases, with no transaction open while the provider is called, and the
/// recovery sweeper that finishes or releases an order a crash left between the phases
/// (PostgreSQL, the sandbox keeping its record in `orders.sandbox_payments`).
@Suite("orders: payment phases and their recovery (PostgreSQL)")
struct PaymentPhasesTests {
    static let ecard = Orders.EcardDetails(greeting: "Hej", recipients: [.init(name: "Bo", email: "bo@example.org")])

    @Test(
        "every provider call runs with the order committed and no transaction holding its rows; keys come from the order"
    )
    func noTransactionDuringProviderCalls() async throws {
        try await OrdersFixture.with { db in
            let probing = ProbingProvider(sandbox: db.sandbox, client: db.client)
            let handlers = db.handlers(provider: probing)
            let ann = db.user()
            let card = try await db.card(for: ann)
            let clientKey = "client-key-\(UUID().uuidString)"
            let postcard = try await handlers.placement.place(
                KeyedOrder(
                    idempotencyKey: clientKey, kind: "postcard", postcard: db.postcard(card: card).postcard,
                    currency: "EUR", paymentMethodId: card), actor: ann, requestId: "t")
            #expect(postcard.state == "paid")
            let ecard = try await handlers.placement.place(
                KeyedOrder(
                    idempotencyKey: UUID().uuidString, kind: "ecard", ecard: Self.ecard, currency: "EUR",
                    paymentMethodId: card), actor: ann, requestId: "t")
            #expect(ecard.state == "paid")
            #expect(
                probing.seen.withLock { $0 } == [
                    "authorize pending_payment", "authorize pending_payment", "capture pending_payment",
                ])

            // Capture when printing starts, after the consumer's transaction has committed.
            let payload = try Wire.makeEncoder().encode(Printing.JobEvent(orderId: postcard.id, reason: nil))
            let event = StoredEvent(
                seq: 0, xid: 0, id: UUID(), topic: Printing.Topic.jobAccepted, producer: "printing",
                payload: payload, requestId: nil, createdAt: db.clock.now())
            try await db.client.withTransaction(logger: OrdersFixture.logger) { connection in
                try await handlers.printingEvents.apply(event, in: Transaction(connection: connection, logger: OrdersFixture.logger))
            }
            #expect(try await db.ledger(postcard.id).movements == ["authorize": 1], "nothing captured inside it")
            try await handlers.payments.settle(UUID(uuidString: postcard.id)!)
            #expect(try await db.ledger(postcard.id).movements == ["authorize": 1, "capture": 2])
            // Void on cancel, after the cancellation has committed.
            let other = try await handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t")
            _ = try await handlers.transitions.cancel(other.id, actor: ann, requestId: "t")
            #expect(try await db.ledger(other.id).sum == 0)
            #expect(
                probing.seen.withLock { Array($0.suffix(3)) } == [
                    "capture in_production", "authorize pending_payment", "void canceled",
                ])
            // The probe does see a transaction holding the order: it would have failed the
            // checks above had one been open.
            let orderId = UUID(uuidString: other.id)!
            try await db.client.withTransaction(logger: OrdersFixture.logger) { connection in
                try await connection.query(
                    "SELECT 1 FROM orders.orders WHERE id = \(orderId) FOR UPDATE", logger: OrdersFixture.logger)
                await probing.probe("held", key: PaymentStep.key("authorize", order: orderId))
            }
            #expect(probing.seen.withLock { $0.last } == "held LOCKED")
            let keys = probing.keys.withLock { $0 }.dropLast()
            #expect(keys.allSatisfy { $0.hasPrefix("order-") && !$0.contains(clientKey) })
            #expect(keys.first == PaymentStep.key("authorize", order: UUID(uuidString: postcard.id)!))
        }
    }

    @Test("a retry while the payment runs is a 409 payment_in_progress with Retry-After; afterwards the stored answer")
    func retryWhileInFlight() async throws {
        let gated = Mutex<GatedProvider?>(nil)
        try await OrdersFixture.with(
            provider: { sandbox in
                let provider = GatedProvider(sandbox: sandbox)
                gated.withLock { $0 = provider }
                return provider
            }, payments: PaymentTiming(inFlightWait: .zero)
        ) { db in
            let provider = try #require(gated.withLock { $0 })
            let ann = db.user()
            let request = db.postcard(card: try await db.card(for: ann))
            let first = Task { try await db.handlers.placement.place(request, actor: ann, requestId: "first") }
            for await _ in provider.entered { break }
            do {
                _ = try await db.handlers.placement.place(request, actor: ann, requestId: "retry")
                Issue.record("a retry during the payment was answered")
            } catch let error as ServiceError {
                #expect(error.code == .conflict && error.code.httpStatus == 409)
                #expect(error.details?["reason"] == .string(OrderPlacementHandler.paymentInProgress))
                #expect((error.retryAfterSeconds ?? 0) >= 1)
            }
            // Cancel waits for the payment too.
            let pending = try await db.orderIds(of: ann)
            #expect(
                await failure {
                    _ = try await db.handlers.transitions.cancel(pending[0].uuidString, actor: ann, requestId: "t")
                }?.code == .conflict)
            provider.open.yield()
            let placed = try await first.value
            #expect(placed.state == "paid")
            #expect(try await db.handlers.placement.place(request, actor: ann, requestId: "later") == placed)
        }
    }

    @Test(
        "the sweeper finishes or releases an order left by a crash between phases",
        arguments: [
            (FaultyProvider.Fault.before("authorize"), "postcard", "4242424242424242", "failed:processing_error"),
            (.after("authorize"), "postcard", "4242424242424242", "paid"),
            (.after("authorize"), "postcard", "4000000000000002", "failed:card_declined"),
            (.before("capture"), "ecard", "4242424242424242", "paid"),
            (.after("capture"), "ecard", "4242424242424242", "paid"),
        ])
    func recovery(fault: FaultyProvider.Fault, kind: String, number: String, expected: String) async throws {
        try await OrdersFixture.with(provider: { FaultyProvider(sandbox: $0, fault: fault) }) { db in
            let ann = db.user()
            let card = try await db.card(number, for: ann)
            let request =
                kind == "ecard"
                ? KeyedOrder(
                    idempotencyKey: UUID().uuidString, kind: "ecard", ecard: Self.ecard, currency: "EUR",
                    paymentMethodId: card)
                : db.postcard(card: card)
            let crashed = await failure { _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t") }
            #expect(crashed?.code == .conflict && crashed?.reason == OrderPlacementHandler.paymentInProgress, "\(fault)")
            let id = try #require(try await db.orderIds(of: ann).first)
            #expect(try await db.state(id) == "pending_payment")
            // The process restarts with a provider that answers; nothing happens before the
            // recovery delay, and a retry meanwhile is told to come back.
            let restarted = db.handlers(payments: PaymentTiming(inFlightWait: .zero))
            try await restarted.payments.settle(id)
            #expect(try await db.state(id) == "pending_payment")
            #expect(
                await failure { _ = try await restarted.placement.place(request, actor: ann, requestId: "t") }?.reason
                    == OrderPlacementHandler.paymentInProgress)
            db.clock.advance(by: 61)
            try await restarted.payments.settle(id)

            let state = try await db.state(id)
            let ledger = try await db.ledger(id.uuidString.lowercased())
            let operations = try await db.sandboxOperations(id)
            if expected == "paid" {
                #expect(state == "paid", "\(fault)")
                let reply = try await restarted.placement.place(request, actor: ann, requestId: "t")
                #expect(reply.id == id.uuidString.lowercased() && reply.state == "paid")
                #expect(ledger.sum == reply.total.amount)
                #expect(
                    ledger.movements == (kind == "ecard" ? ["authorize": 1, "capture": 2] : ["authorize": 1]),
                    "\(fault)")
                #expect(operations == (kind == "ecard" ? ["authorize", "capture"] : ["authorize"]), "one of each")
                #expect(try await db.events(reply.id).first == "orders.paid")
            } else {
                let reason = String(expected.dropFirst("failed:".count))
                #expect(state == "failed", "\(fault)")
                let answer = await failure { _ = try await restarted.placement.place(request, actor: ann, requestId: "t") }
                #expect(answer?.code == .paymentRequired && answer?.reason == reason, "\(fault)")
                #expect(ledger.sum == 0 && ledger.movements.isEmpty)
                #expect(try await db.events(id.uuidString.lowercased()).first == "orders.payment_failed")
            }
        }
    }

    @Test("a capture refused after the authorization voids it: the order fails with a zero ledger")
    func strayAuthorizationVoided() async throws {
        try await OrdersFixture.with(provider: { RefusingCaptures(sandbox: $0) }) { db in
            let ann = db.user()
            let request = KeyedOrder(
                idempotencyKey: UUID().uuidString, kind: "ecard", ecard: Self.ecard, currency: "EUR",
                paymentMethodId: try await db.card(for: ann))
            let refused = await failure { _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t") }
            #expect(refused?.code == .paymentRequired && refused?.reason == "card_declined")
            let id = try #require(try await db.orderIds(of: ann).first)
            #expect(try await db.state(id) == "failed")
            let ledger = try await db.ledger(id.uuidString.lowercased())
            #expect(ledger.sum == 0 && ledger.movements == ["authorize": 1, "void": 1])
            #expect(try await db.sandboxOperations(id) == ["authorize", "void"])
        }
    }

    @Test("a capture on printing that got no answer is made by the sweeper, once")
    func captureRecovered() async throws {
        try await OrdersFixture.with(provider: { FaultyProvider(sandbox: $0, fault: .after("capture")) }) { db in
            let ann = db.user()
            let placed = try await db.handlers.placement.place(
                db.postcard(card: try await db.card(for: ann)), actor: ann, requestId: "t")
            try await db.printing(Printing.Topic.jobAccepted, order: placed.id)
            #expect(try await db.ledger(placed.id).movements == ["authorize": 1], "the capture's answer was lost")
            db.clock.advance(by: 61)
            try await db.handlers(provider: db.sandbox).payments.settle(UUID(uuidString: placed.id)!)
            let ledger = try await db.ledger(placed.id)
            #expect(ledger.movements == ["authorize": 1, "capture": 2] && ledger.sum == placed.total.amount)
            #expect(try await db.sandboxOperations(UUID(uuidString: placed.id)!) == ["authorize", "capture"])
            #expect(try await db.state(UUID(uuidString: placed.id)!) == "in_production")
        }
    }

    @Test("a job that fails before the settler ran after production started is captured, then refunded")
    func failedBeforeCapture() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let placed = try await db.handlers.placement.place(
                db.postcard(card: try await db.card(for: ann)), actor: ann, requestId: "t")
            for topic in [Printing.Topic.jobAccepted, Printing.Topic.jobFailed] {
                let payload = try Wire.makeEncoder().encode(Printing.JobEvent(orderId: placed.id, reason: "jam"))
                let event = StoredEvent(
                    seq: 0, xid: 0, id: UUID(), topic: topic, producer: "printing", payload: payload, requestId: nil,
                    createdAt: db.clock.now())
                try await db.client.withTransaction(logger: OrdersFixture.logger) { connection in
                    try await db.handlers.printingEvents.apply(event, in: Transaction(connection: connection, logger: OrdersFixture.logger))
                }
            }
            try await db.handlers.payments.settle(UUID(uuidString: placed.id)!)
            let detail = try await db.handlers.history.detail(placed.id, actor: ann)
            #expect(detail.history.map(\.state) == ["pending_payment", "paid", "in_production", "failed", "refunded"])
            let ledger = try await db.ledger(placed.id)
            #expect(ledger.sum == 0 && ledger.movements == ["authorize": 1, "capture": 2, "refund": 1])
        }
    }

    @Test("the periodic sweep recovers due orders; 50 identical concurrent orders still make one authorization")
    func sweepAndConcurrency() async throws {
        try await OrdersFixture.with(
            provider: { FaultyProvider(sandbox: $0, fault: .after("authorize")) },
            payments: PaymentTiming(recoveryAfter: 0, inFlightWait: .zero)
        ) { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            _ = await failure { _ = try await db.handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t") }
            let id = try #require(try await db.orderIds(of: ann).first)
            let sweeper = db.handlers(payments: PaymentTiming(recoveryAfter: 0))
            while try await sweeper.payments.sweepPayments() == 100 {}
            #expect(try await db.state(id) == "paid")

            let bo = db.user()
            let request = db.postcard(card: try await db.card(for: bo))
            let handlers = db.handlers()
            let replies = try await withThrowingTaskGroup(of: Orders.PlaceOrder.Reply.self) { group in
                for index in 0..<50 {
                    group.addTask { try await handlers.placement.place(request, actor: bo, requestId: "r\(index)") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.count == 50 && Set(replies).count == 1)
            let orders = try await db.orderIds(of: bo)
            #expect(orders.count == 1)
            #expect(try await db.sandboxOperations(orders[0]) == ["authorize"])
        }
    }
}

extension OrdersFixture {
    /// The ids of `actor`'s orders, oldest first.
    func orderIds(of actor: Actor) async throws -> [UUID] {
        let rows = try await client.query(
            "SELECT id FROM orders.orders WHERE user_id = \(UUID(uuidString: actor.userId)!) ORDER BY created_at, id",
            logger: Self.logger)
        var ids: [UUID] = []
        for try await id in rows.decode(UUID.self) { ids.append(id) }
        return ids
    }

    /// An order's state.
    func state(_ id: UUID) async throws -> String? {
        let rows = try await client.query("SELECT state FROM orders.orders WHERE id = \(id)", logger: Self.logger)
        for try await state in rows.decode(String.self) { return state }
        return nil
    }

    /// The operations the sandbox recorded for an order (by the keys derived from it), in order.
    func sandboxOperations(_ id: UUID) async throws -> [String] {
        let prefix = "order-\(id.uuidString.lowercased())-%"
        let rows = try await client.query(
            """
            SELECT operation FROM orders.sandbox_payments WHERE idempotency_key LIKE \(prefix)
            ORDER BY created_at, array_position(ARRAY['authorize', 'capture', 'void', 'refund'], operation)
            """, logger: Self.logger)
        var operations: [String] = []
        for try await operation in rows.decode(String.self) { operations.append(operation) }
        return operations
    }
}
