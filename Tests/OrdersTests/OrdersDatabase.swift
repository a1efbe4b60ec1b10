import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import PrintingContract
import ServiceKit
import Store
import TestSupport
import ZeroMQ

@testable import OrdersService

/// The orders service's parts against the real PostgreSQL of `DATABASE_URL` (schemas `orders`
/// and `events`, migrated), with a clock the test moves. Tests keep apart by using fresh users.
struct OrdersFixture: Sendable {
    let client: PostgresClient
    let clock: ManualClock
    let quoting: QuoteHandler
    let wallet: PaymentMethodHandler
    /// The service's handlers on the fixture's provider.
    let handlers: OrdersService.Handlers
    /// The sandbox provider, keeping its record in `orders.sandbox_payments`.
    let sandbox: SandboxPaymentClient
    let publisher: EventPublisher

    static let logger: Logger = {
        var logger = Logger(label: "orders-test")
        logger.logLevel = .critical
        return logger
    }()

    /// A context nobody runs: announced events queue in memory (consumers would read the log).
    static let context = Context()

    /// Runs `body` with a migrated database and fresh service parts.
    /// `provider` wraps the sandbox for the handlers (a test double that fails between phases);
    /// `payments` sets the phases' timing; `settings` the service's settings (e-cards priced at
    /// 0.99 euros unless a test asks for the default, free ones, so that the money paths run).
    static func with(
        provider wrap: @Sendable (SandboxPaymentClient) -> any PaymentProvider = { $0 },
        payments: PaymentTiming = PaymentTiming(), settings: [String: String] = ["ECARD_PRICE": "0.99"],
        _ body: @Sendable (OrdersFixture) async throws -> Void
    ) async throws {
        try await PostgresFixture.withClient(maximumConnections: 20, logger: logger) { client in
            // Real time (whole seconds), since orders processes of other suites sweep expired rows
            // by their own clocks.
            let clock = ManualClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
            let events = EventLog(client: client, clock: clock, logger: logger)
            try await events.migrate()
            try await Migrator(client: client, schema: "orders", logger: logger).migrate(OrdersService.migrations())
            let stores = OrdersStores(client: client, logger: logger)
            try await stores.rates.bootstrap(from: OrdersService.sampleRatesURL(), source: "test", now: clock.now())
            let configuration = try OrdersService.Configuration(ProcessEnvironment(settings))
            let quoting = QuoteHandler(
                quotes: stores.quotes, rates: stores.rates, pricing: configuration.pricing,
                tariffs: BuiltInPostageTariff(configuration.tariff), validity: configuration.quoteValidity,
                clock: clock, logger: logger)
            let sandbox = SandboxPaymentClient(record: .stored(stores.sandbox), clock: clock)
            let publisher = EventPublisher(
                log: events, producer: .orders, context: context, endpoint: "tcp://127.0.0.1:1")
            let handlers = OrdersService.Handlers(
                stores: stores, transactions: Transactions(client, logger: logger), quotes: quoting,
                provider: wrap(sandbox), events: publisher, keyLifetime: configuration.keyLifetime, timing: payments,
                freeEcards: configuration.freeEcards, clock: clock, logger: logger)
            try await body(
                OrdersFixture(
                    client: client, clock: clock, quoting: quoting, wallet: handlers.paymentMethods,
                    handlers: handlers, sandbox: sandbox, publisher: publisher))
        }
    }

    /// A new user.
    func user(roles: [String] = ["user"]) -> Actor { Actor(userId: UUID().uuidString.lowercased(), roles: roles) }

    /// Saves `number` for `actor` and returns the payment method id.
    func card(_ number: String = "4242424242424242", for actor: Actor) async throws -> String {
        try await wallet.add(.init(number: number, expMonth: 12, expYear: 2030, cvc: "123"), actor: actor).id
    }

    /// A postcard order request.
    func postcard(
        key: String = UUID().uuidString, card: String, names: [String] = ["Ann Lund"], country: String = "SE",
        currency: String = "EUR", size: String = "A6"
    ) -> KeyedOrder {
        KeyedOrder(
            idempotencyKey: key, kind: "postcard",
            postcard: .init(
                size: size, greeting: "Hi",
                recipients: names.map {
                    .init(
                        name: $0,
                        address: .init(line1: "Storgatan 1", city: "Lund", postalCode: "22350", country: country))
                }), currency: currency, paymentMethodId: card)
    }

    /// The sum of an order's ledger rows, and how many rows of each movement it has.
    func ledger(_ orderId: String) async throws -> (sum: Int64, movements: [String: Int]) {
        let rows = try await client.query(
            "SELECT movement, amount FROM orders.ledger WHERE order_id = \(UUID(uuidString: orderId)!)",
            logger: Self.logger)
        var sum: Int64 = 0
        var movements: [String: Int] = [:]
        for try await (movement, amount) in rows.decode((String, Int64).self) {
            sum += amount
            movements[movement, default: 0] += 1
        }
        return (sum, movements)
    }

    /// The handlers of another replica on the same database (or of the process restarted after
    /// a crash) with `provider` (the plain sandbox by default).
    func handlers(provider: (any PaymentProvider)? = nil, payments: PaymentTiming = PaymentTiming())
        -> OrdersService.Handlers
    {
        OrdersService.Handlers(
            stores: OrdersStores(client: client, logger: Self.logger),
            transactions: Transactions(client, logger: Self.logger), quotes: quoting, provider: provider ?? sandbox,
            events: publisher, keyLifetime: handlers.placement.keyLifetime, timing: payments,
            freeEcards: handlers.placement.freeEcards, clock: clock, logger: Self.logger)
    }

    /// The Stripe webhook handler checking `signature`, on the fixture's handlers.
    func webhooks(signature: StripeSignature?) -> StripeWebhookHandler {
        StripeWebhookHandler(
            stripeEvents: StripeEventStore(client: client, logger: Self.logger),
            orders: OrderStore(client: client, logger: Self.logger), payments: handlers.payments,
            refunds: handlers.refunds, signature: signature, clock: clock)
    }

    /// Delivers a printing job event as the consumer would: in a transaction; then makes the
    /// money movement the move calls for, as the service's settler does after that commit.
    func printing(_ topic: String, order: String, reason: String? = nil) async throws {
        let payload = try Wire.makeEncoder().encode(Printing.JobEvent(orderId: order, reason: reason))
        let event = StoredEvent(
            seq: 0, xid: 0, id: UUID(), topic: topic, producer: "printing", payload: payload, requestId: nil,
            createdAt: clock.now())
        try await client.withTransaction(logger: Self.logger) { connection in
            try await handlers.printingEvents.apply(event, in: Transaction(connection: connection, logger: Self.logger))
        }
        try await handlers.payments.settle(UUID(uuidString: order)!)
    }

    /// Topics of the events the orders service logged for `orderId`, in log order.
    /// The reason in the `orders.failed` notice of an order (for notify's `order_failed`).
    func noticeReason(_ orderId: String) async throws -> String? {
        let rows = try await client.query(
            """
            SELECT payload->>'reason' FROM events.log
            WHERE topic = 'orders.failed' AND payload->>'orderId' = \(orderId) AND payload ? 'userId'
            """, logger: Self.logger)
        for try await reason in rows.decode(String?.self) { return reason }
        return nil
    }

    func events(_ orderId: String) async throws -> [String] {
        let rows = try await client.query(
            "SELECT topic FROM events.log WHERE payload->>'orderId' = \(orderId) ORDER BY seq", logger: Self.logger)
        var topics: [String] = []
        for try await topic in rows.decode(String.self) { topics.append(topic) }
        return topics
    }
}

/// The error code and `details.reason` of what `work` throws (nil if it does not).
func failure(_ work: () async throws -> Void) async -> (code: ErrorCode, reason: String?)? {
    do {
        try await work()
        return nil
    } catch let error as ServiceError {
        if case .string(let reason) = error.details?["reason"] { return (error.code, reason) }
        return (error.code, nil)
    } catch {
        return (.internal, "\(error)")
    }
}

/// An order request with the `Idempotency-Key` its client sent (the metadata carries it on the
/// bus); reads and writes the request's members as its own.
@dynamicMemberLookup
struct KeyedOrder: Sendable {
    var idempotencyKey: String
    var request: Orders.PlaceOrder.Request

    init(
        idempotencyKey: String, kind: String, postcard: Orders.PostcardDetails? = nil,
        ecard: Orders.EcardDetails? = nil, gift: Orders.GiftOrder? = nil, currency: String,
        paymentMethodId: String? = nil, quoteId: String? = nil
    ) {
        self.idempotencyKey = idempotencyKey
        request = .init(
            kind: kind, postcard: postcard, ecard: ecard, gift: gift, currency: currency,
            paymentMethodId: paymentMethodId, quoteId: quoteId)
    }

    subscript<Value>(dynamicMember member: WritableKeyPath<Orders.PlaceOrder.Request, Value>) -> Value {
        get { request[keyPath: member] }
        set { request[keyPath: member] = newValue }
    }
}

extension OrderPlacementHandler {
    /// Places `order` as the gateway does: its key checked, then carried beside the request.
    func place(_ order: KeyedOrder, actor: Actor, requestId: String) async throws -> Orders.PlaceOrder.Reply {
        try await place(
            order.request, idempotencyKey: try IdempotencyKey.validated(order.idempotencyKey), actor: actor,
            requestId: requestId)
    }
}
