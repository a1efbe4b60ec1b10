import Contract
import Foundation
import Logging
import OrdersContract
import ServiceKit
import Store

/// The `orders` service: quotes, currencies, saved cards, orders, payments and the ledger.
public enum OrdersService {
    static let priceList = Setting(
        "PRICE_LIST", default: "A6=1.49,A5=2.49,A4=3.99", "printing cost per card by size, in euros (SIZE=EUROS,...)")
    static let ecardPrice = Setting(
        "ECARD_PRICE", default: "0",
        "price of one e-card delivery, in euros (0: e-cards are free and never reach the card processor)")
    static let freeEcardRecipients = Setting(
        "FREE_ECARD_RECIPIENTS_PER_DAY", default: "\(FreeEcardAllowance.defaultRecipientsPerDay)",
        "recipients of free e-cards an account may send per UTC day (beyond: 429 until the day rolls over)")
    static let postageHome = Setting(
        "POSTAGE_HOME_COUNTRY", default: "DE",
        "fallback postage tariff (printing absent): country the cards are posted in (ISO 3166)")
    static let postageDomestic = Setting(
        "POSTAGE_DOMESTIC", default: "0.95", "fallback tariff: domestic postage, euros")
    static let postageEurope = Setting(
        "POSTAGE_EUROPE", default: "1.10", "fallback tariff: postage within Europe, euros")
    static let postageWorld = Setting("POSTAGE_WORLD", default: "1.65", "fallback tariff: postage elsewhere, euros")
    static let quoteSeconds = Setting(
        "QUOTE_VALID_S", default: "1800", "how long a quote's currency rate holds for an order, in seconds",
        formerly: [.init("QUOTE_VALID_MINUTES", scale: 60)])
    static let ratesPath = Setting(
        "CURRENCY_RATES_PATH", default: nil,
        "ECB eurofxref-daily.xml loaded at start when newer than the stored rates (default: the shipped sample)")
    static let keySeconds = Setting(
        "IDEMPOTENCY_KEY_S", default: "86400",
        "how long order Idempotency-Keys are remembered, in seconds (at least 86400, a day)",
        formerly: [.init("IDEMPOTENCY_KEY_HOURS", scale: 3_600)])
    static let ratesRefresh = Setting(
        "RATES_REFRESH_S", default: "5", "how often a replica re-reads the rates in force (others' loads), in seconds",
        formerly: [.init("RATES_REFRESH_SECONDS")])
    static let postageCache = Setting(
        "POSTAGE_CACHE_S", default: "30",
        "how long printing's postage answers are reused, in seconds (a new postage file reaches quotes within it; 0: ask each time)",
        formerly: [.init("POSTAGE_CACHE_SECONDS")])
    static let paymentProvider = Setting(
        "PAYMENT_PROVIDER", default: "sandbox",
        "payment provider: `sandbox` (built in, test mode) or `stripe` (PaymentIntents; needs STRIPE_API_KEY)")
    static let stripeAPIKey = Setting(
        "STRIPE_API_KEY", default: nil, "Stripe secret key (sk_...), with PAYMENT_PROVIDER=stripe", secret: true)
    static let stripeBaseURL = Setting(
        "STRIPE_BASE_URL", default: "https://api.stripe.com", "Stripe's API (or the stand-in, deploy/stripe-standin)")
    static let stripeConnections = Setting(
        "STRIPE_MAX_CONNECTIONS", default: "128",
        "connections kept open to Stripe at most; each call holds one for Stripe's answer, so this bounds the calls in flight")
    static let stripeTimeout = Setting(
        "STRIPE_TIMEOUT_MS", default: "10000", "how long one Stripe request may take before it is retried")
    static let stripeWebhookSecret = Setting(
        "STRIPE_WEBHOOK_SECRET", default: nil,
        "signing secret (whsec_...) of POST /v1/webhooks/stripe; unset: the endpoint answers 404", secret: true)
    static let stripeWebhookTolerance = Setting(
        "STRIPE_WEBHOOK_TOLERANCE_S", default: "300", "how far a webhook's signed timestamp may be from now")
    static let stripeRetries = Setting(
        "STRIPE_RETRIES", default: "2", "retries of a Stripe request (same Idempotency-Key) after a timeout or a 5xx")

    static let paymentRecovery = Setting(
        "PAYMENT_RECOVERY_AFTER_MS", default: "60000",
        "an order pending_payment this long is finished or released by the sweeper (above the provider's timeout)")
    static let paymentInFlightWait = Setting(
        "PAYMENT_INFLIGHT_WAIT_MS", default: "3000",
        "how long a retry waits for its key's running payment before a 409 payment_in_progress")
    static let paymentSweep = Setting(
        "PAYMENT_SWEEP_MS", default: "1000",
        "how often the payment sweeper looks for orders to recover and captures, voids or refunds to make")

    /// The settings this service adds to every worker's.
    static let own = [
        priceList, ecardPrice, freeEcardRecipients, postageHome, postageDomestic, postageEurope, postageWorld, quoteSeconds, ratesPath,
        ratesRefresh, keySeconds, postageCache, paymentProvider, paymentRecovery, paymentInFlightWait, paymentSweep,
        stripeAPIKey, stripeBaseURL, stripeConnections, stripeTimeout, stripeRetries, stripeWebhookSecret, stripeWebhookTolerance,
    ]

    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "orders",
        summary: "MDP worker for quotes, currencies, saved cards, orders, payments and the ledger",
        settings: WorkerHost.settings + own,
        probeHelp: "check that an orders worker answers its health operation through the broker")

    /// The migrations shipped with the service (`Migrations/NNNN_name.sql`).
    public static func migrations() throws -> [Migration] {
        guard let url = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ServiceError(.internal, "the orders service's Migrations folder is missing from its resources")
        }
        return try Migration.load(from: url)
    }

    /// The rates file that ships with the service (ECB format).
    public static func sampleRatesURL() throws -> URL {
        guard let url = Bundle.module.url(forResource: "eurofxref-daily", withExtension: "xml") else {
            throw ServiceError(.internal, "the sample rates file is missing from the orders resources")
        }
        return url
    }

    /// Pricing, tariff, quote validity and key lifetime from the settings.
    public struct Configuration: Sendable {
        public var pricing: Pricing
        /// The daily cap on recipients of free e-cards.
        public var freeEcards: FreeEcardAllowance
        public var tariff: PostageTariff
        public var quoteValidity: TimeInterval
        public var keyLifetime: TimeInterval
        public var ratesRefresh: Duration
        public var postageCache: Duration
        /// The payment phases' timing.
        public var payments: PaymentTiming
        /// How often the payment sweeper runs.
        public var paymentSweep: Duration
        /// Stripe's settings when `PAYMENT_PROVIDER=stripe`; nil for the sandbox.
        public var stripe: StripeClient.Settings?
        /// The webhook signature check; nil when no secret is set.
        public var webhookSignature: StripeSignature?

        /// Reads the settings.
        public init(_ environment: ProcessEnvironment) throws {
            pricing = Pricing(
                prices: try PriceList(
                    parsing: try environment.required(OrdersService.priceList),
                    ecard: try environment.required(OrdersService.ecardPrice)))
            freeEcards = FreeEcardAllowance(
                recipientsPerDay: try environment.int(OrdersService.freeEcardRecipients, in: 1...1_000_000))
            func price(_ setting: Setting) throws -> Price {
                let raw = try environment.required(setting)
                guard let price = Price(raw) else {
                    throw invalid(setting, raw, "euros, e.g. 1.10")
                }
                return price
            }
            let home = try environment.required(OrdersService.postageHome).uppercased()
            guard Countries.all.contains(home) else {
                throw invalid(OrdersService.postageHome, home, "an ISO 3166-1 alpha-2 code")
            }
            tariff = PostageTariff(
                name: "built-in", homeCountry: home, domestic: try price(OrdersService.postageDomestic),
                europe: try price(OrdersService.postageEurope), world: try price(OrdersService.postageWorld))
            quoteValidity = TimeInterval(try environment.int(OrdersService.quoteSeconds, in: 60...604_800))
            keyLifetime = TimeInterval(try environment.int(OrdersService.keySeconds, in: 86_400...31_536_000))
            ratesRefresh = .seconds(try environment.int(OrdersService.ratesRefresh, in: 0...3600))
            postageCache = .seconds(try environment.int(OrdersService.postageCache, in: 0...86_400))
            let recovery =
                TimeInterval(try environment.int(OrdersService.paymentRecovery, in: 1000...86_400_000)) / 1000
            payments = PaymentTiming(
                recoveryAfter: recovery,
                inFlightWait: .milliseconds(try environment.int(OrdersService.paymentInFlightWait, in: 0...60_000)),
                lease: recovery)
            paymentSweep = .milliseconds(try environment.int(OrdersService.paymentSweep, in: 10...3_600_000))
            let tolerance = TimeInterval(try environment.int(OrdersService.stripeWebhookTolerance, in: 1...86_400))
            webhookSignature = environment.string(OrdersService.stripeWebhookSecret).flatMap {
                $0.isEmpty ? nil : StripeSignature(secret: $0, tolerance: tolerance)
            }
            let provider = try environment.required(OrdersService.paymentProvider)
            switch provider {
            case "sandbox":
                stripe = nil
            case "stripe":
                guard let key = environment.string(OrdersService.stripeAPIKey), !key.isEmpty else {
                    throw ServiceError(.invalidArgument, "PAYMENT_PROVIDER=stripe needs STRIPE_API_KEY")
                }
                stripe = StripeClient.Settings(
                    apiKey: key, baseURL: try environment.required(OrdersService.stripeBaseURL),
                    timeout: .milliseconds(try environment.int(OrdersService.stripeTimeout, in: 100...120_000)),
                    retries: try environment.int(OrdersService.stripeRetries, in: 0...10))
            default:
                throw invalid(OrdersService.paymentProvider, provider, "sandbox or stripe")
            }
        }
    }

    static func invalid(_ setting: Setting, _ value: String, _ expected: String) -> ServiceError {
        ServiceError(.invalidArgument, "\(setting.name)=\(value) is not valid: expected \(expected)")
    }

    /// The service's handlers and its printing-events consumer over one set of stores, wired as
    /// the worker runs them (and as the tests do).
    public struct Handlers: Sendable {
        public let quotes: QuoteHandler
        public let paymentMethods: PaymentMethodHandler
        public let payments: PaymentHandler
        public let refunds: RefundHandler
        public let history: OrderHistoryHandler
        public let transitions: OrderTransitionHandler
        public let placement: OrderPlacementHandler
        public let webhooks: StripeWebhookHandler
        public let printingEvents: PrintingEventConsumer

        /// Wires the handlers. `images`, `gifts`, `contacts` and `drafts` ask printing and social
        /// (nil where there is none to ask: orders that need them are `unavailable`, images go
        /// unchecked).
        public init(
            stores: OrdersStores, transactions: Transactions, quotes: QuoteHandler, provider: any PaymentProvider,
            events: EventPublisher, keyLifetime: TimeInterval, timing: PaymentTiming = PaymentTiming(),
            freeEcards: FreeEcardAllowance = FreeEcardAllowance(), webhookSignature: StripeSignature? = nil,
            images: PrintingImageClient? = nil, gifts: SocialGiftClient? = nil, contacts: SocialContactClient? = nil,
            drafts: PrintingDraftClient? = nil, clock: any WallClock, logger: Logger
        ) {
            self.quotes = quotes
            paymentMethods = PaymentMethodHandler(store: stores.cards, provider: provider, clock: clock)
            payments = PaymentHandler(
                orders: stores.orders, ledger: stores.ledger, keys: stores.keys, cards: stores.cards,
                paymentMethods: paymentMethods, provider: provider, events: events, transactions: transactions,
                timing: timing, clock: clock, logger: logger)
            refunds = RefundHandler(
                orders: stores.orders, refunds: stores.refunds, ledger: stores.ledger, provider: provider,
                events: events, transactions: transactions, timing: timing, clock: clock, logger: logger)
            history = OrderHistoryHandler(orders: stores.orders, cards: stores.cards)
            transitions = OrderTransitionHandler(
                orders: stores.orders, payments: payments, history: history, events: events,
                transactions: transactions, clock: clock)
            placement = OrderPlacementHandler(
                orders: stores.orders, keys: stores.keys, quotes: quotes, payments: payments, events: events,
                transactions: transactions, images: images, gifts: gifts, contacts: contacts, drafts: drafts,
                keyLifetime: keyLifetime, freeEcards: freeEcards, clock: clock, logger: logger)
            webhooks = StripeWebhookHandler(
                stripeEvents: stores.stripeEvents, orders: stores.orders, payments: payments, refunds: refunds,
                signature: webhookSignature, clock: clock)
            printingEvents = PrintingEventConsumer(
                orders: stores.orders, transitions: transitions, events: events, logger: logger)
        }
    }

    /// Its migrations, operations, the printing-events consumer, the event publisher, the
    /// sweeper of expired keys and the payment sweeper; the health operation is built in.
    public static let definition = WorkerDefinition(service: .orders, migrations: migrations) { router, resources in
        let configuration = try Configuration(resources.environment)
        let stores = OrdersStores(client: resources.database.client, logger: resources.logger)
        if let path = resources.environment.string(ratesPath) {
            try await stores.rates.bootstrap(
                from: URL(fileURLWithPath: path), source: "file \(path)", now: resources.clock.now())
        }
        try await stores.rates.bootstrap(
            from: try sampleRatesURL(), source: "shipped sample", now: resources.clock.now())
        let publisher = EventPublisher(
            log: resources.events, producer: .orders, context: resources.context,
            endpoint: try resources.environment.required(.eventsPublishURL))
        let quotes = QuoteHandler(
            quotes: stores.quotes, rates: stores.rates, pricing: configuration.pricing,
            tariffs: PrintingPostageClient(
                bus: resources.bus, fallback: configuration.tariff, cacheTTL: configuration.postageCache,
                logger: resources.logger),
            validity: configuration.quoteValidity,
            ratesRefresh: configuration.ratesRefresh, clock: resources.clock, logger: resources.logger)
        let provider: any PaymentProvider =
            if let stripe = configuration.stripe {
                StripeClient(
                    settings: stripe,
                    http: StripeClient.httpClient(
                        connections: try resources.environment.int(OrdersService.stripeConnections, in: 1...4096)),
                    logger: resources.logger)
            } else {
                SandboxPaymentClient(record: .stored(stores.sandbox), clock: resources.clock)
            }
        let handlers = Handlers(
            stores: stores, transactions: resources.transactions, quotes: quotes, provider: provider,
            events: publisher, keyLifetime: configuration.keyLifetime, timing: configuration.payments,
            freeEcards: configuration.freeEcards, webhookSignature: configuration.webhookSignature,
            images: PrintingImageClient(bus: resources.bus), gifts: SocialGiftClient(bus: resources.bus),
            contacts: SocialContactClient(bus: resources.bus), drafts: PrintingDraftClient(bus: resources.bus),
            clock: resources.clock, logger: resources.logger)
        register(handlers, on: &router)
        let printing = try resources.consumer(name: "orders.printing", topics: PrintingEventConsumer.topics) {
            event, tx in
            try await handlers.printingEvents.apply(event, in: tx)
        }
        let sweeper = ExpiredKeySweeper(
            keys: stores.keys, quotes: stores.quotes, clock: resources.clock, interval: .seconds(3600),
            logger: resources.logger)
        let payments = PaymentSweeper(
            payments: handlers.payments, refunds: handlers.refunds, interval: configuration.paymentSweep,
            logger: resources.logger)
        return [publisher.service, printing, sweeper, payments]
    }

    /// The operation table: one line per operation, each naming a handler's method.
    static func register(_ handlers: Handlers, on router: inout OperationRouter) {
        let (quotes, paymentMethods, placement) = (handlers.quotes, handlers.paymentMethods, handlers.placement)
        let (history, transitions, refunds, webhooks) =
            (handlers.history, handlers.transitions, handlers.refunds, handlers.webhooks)
        router.register(Orders.Quote.self) { request, context in
            try await quotes.quote(request, actor: context.metadata.actor, metadata: context.metadata)
        }
        router.registerEncoded(Orders.ListCurrencies.self) { _, _ in try await quotes.currenciesJSON() }
        // The listing is kept encoded in memory: a quick read (see `OperationRouter.markQuick`).
        router.markQuick(Orders.ListCurrencies.self)
        router.register(Orders.LoadRates.self) { request, context in
            try await quotes.load(xml: request.xml, actor: try context.requireRole(.admin))
        }
        router.register(Orders.AddPaymentMethod.self) { request, context in
            try await paymentMethods.add(request, actor: try context.requireActor())
        }
        router.register(Orders.SaveTokenizedPaymentMethod.self) { request, context in
            try await paymentMethods.addTokenized(request, actor: try context.requireActor())
        }
        router.register(Orders.ListPaymentMethods.self) { request, context in
            try await paymentMethods.list(request, actor: try context.requireActor())
        }
        router.register(Orders.DeletePaymentMethod.self) { request, context in
            try await paymentMethods.delete(request.id, actor: try context.requireActor())
        }
        router.register(Orders.PlaceOrder.self) { request, context in
            try await placement.placeOrder(
                request, actor: try context.requireActor(),
                idempotencyKey: try context.metadata.requireIdempotencyKey(), requestId: context.metadata.requestId)
        }
        router.register(Orders.ListOrders.self) { request, context in
            try await history.list(request, actor: try context.requireActor())
        }
        router.register(Orders.ImageInOrders.self) { request, context in
            try await history.usesImage(request.id, actor: try context.requireActor())
        }
        router.register(Orders.GetOrder.self) { request, context in
            try await history.detail(request.id, actor: try context.requireActor())
        }
        router.register(Orders.RefundOrder.self) { request, context in
            try await refunds.refund(
                request, idempotencyKey: try context.metadata.requireIdempotencyKey(),
                actor: try context.requireRole(.admin))
        }
        router.register(Orders.CancelOrder.self) { request, context in
            try await transitions.cancel(
                request.id, actor: try context.requireActor(), requestId: context.metadata.requestId)
        }
        router.register(Orders.StripeWebhook.self) { request, _ in try await webhooks.receive(request) }
    }
}
