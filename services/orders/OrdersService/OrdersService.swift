import Contract
import Foundation
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
        public var stripe: StripePaymentProvider.Settings?
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
                stripe = StripePaymentProvider.Settings(
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

    /// Its migrations, operations, the printing-events consumer, the event publisher, the
    /// sweeper of expired keys and the payment sweeper; the health operation is built in.
    public static let definition = WorkerDefinition(service: .orders, migrations: migrations) { router, resources in
        let configuration = try Configuration(resources.environment)
        let rates = RatesStore(client: resources.postgres, logger: resources.logger)
        if let path = resources.environment.string(ratesPath) {
            try await rates.bootstrap(
                from: URL(fileURLWithPath: path), source: "file \(path)", now: resources.clock.now())
        }
        try await rates.bootstrap(from: try sampleRatesURL(), source: "shipped sample", now: resources.clock.now())
        let publisher = EventPublisher(
            log: resources.events, producer: .orders, context: resources.context,
            endpoint: try resources.environment.required(.eventsPublishURL))
        let quoting = Quoting(
            client: resources.postgres, pricing: configuration.pricing,
            tariffs: PrintingPostageTariff(
                bus: resources.bus, fallback: configuration.tariff, cacheTTL: configuration.postageCache,
                logger: resources.logger),
            validity: configuration.quoteValidity,
            ratesRefresh: configuration.ratesRefresh, clock: resources.clock, logger: resources.logger)
        let provider: any PaymentProvider =
            if let stripe = configuration.stripe {
                StripePaymentProvider(
                    settings: stripe,
                    http: StripePaymentProvider.client(
                        connections: try resources.environment.int(OrdersService.stripeConnections, in: 1...4096)),
                    logger: resources.logger)
            } else {
                SandboxPaymentProvider(
                    record: .postgres(resources.postgres, logger: resources.logger), clock: resources.clock)
            }
        let book = OrderBook(
            client: resources.postgres, quoting: quoting, provider: provider, events: publisher,
            images: PrintingImages(bus: resources.bus), gifts: SocialGifts(bus: resources.bus),
            keyLifetime: configuration.keyLifetime, payments: configuration.payments,
            freeEcards: configuration.freeEcards, clock: resources.clock, logger: resources.logger)
        let wallet = Wallet(
            store: PaymentMethodStore(client: resources.postgres, logger: resources.logger), provider: provider,
            clock: resources.clock)
        register(
            quoting: quoting, wallet: wallet, book: book, contacts: SocialContacts(bus: resources.bus),
            drafts: PrintingDrafts(bus: resources.bus), on: &router)
        let webhooks = StripeWebhooks(book: book, signature: configuration.webhookSignature)
        router.register(Orders.StripeWebhook.self) { request, _ in try await webhooks.receive(request) }
        let printing = try resources.consumer(name: "orders.printing", topics: Orders.PrintingTopic.all) {
            event, connection in
            try await book.apply(printing: event, on: connection)
        }
        let sweeper = Sweeper(
            client: resources.postgres, clock: resources.clock, interval: .seconds(3600), logger: resources.logger)
        let payments = PaymentSweeper(book: book, interval: configuration.paymentSweep, logger: resources.logger)
        return [publisher.service, printing, sweeper, payments]
    }

    /// Registers the service's operations.
    /// `contacts` resolves the address-book contacts a postcard or e-card order names, before
    /// the order book places it (nil: such an order is `unavailable`); `drafts` reads the saved
    /// postcard an order names by `draftId`, before that (nil: such an order is `unavailable`).
    public static func register(
        quoting: Quoting, wallet: Wallet, book: OrderBook, contacts: SocialContacts? = nil,
        drafts: PrintingDrafts? = nil, on router: inout OperationRouter
    ) {
        router.register(Orders.Quote.self) { request, context in
            try await quoting.quote(request, actor: context.metadata.actor, metadata: context.metadata)
        }
        router.registerEncoded(Orders.ListCurrencies.self) { _, _ in try await quoting.currenciesJSON() }
        // The listing is kept encoded in memory: a quick read (see `OperationRouter.markQuick`).
        router.markQuick(Orders.ListCurrencies.self)
        router.register(Orders.LoadRates.self) { request, context in
            try await quoting.load(xml: request.xml, actor: try context.requireRole(.admin))
        }
        router.register(Orders.AddPaymentMethod.self) { request, context in
            try await wallet.add(request, actor: try context.requireActor())
        }
        router.register(Orders.SaveTokenizedPaymentMethod.self) { request, context in
            try await wallet.addTokenized(request, actor: try context.requireActor())
        }
        router.register(Orders.ListPaymentMethods.self) { request, context in
            try await wallet.list(request, actor: try context.requireActor())
        }
        router.register(Orders.DeletePaymentMethod.self) { request, context in
            try await wallet.delete(request.id, actor: try context.requireActor())
            return Empty()
        }
        router.register(Orders.PlaceOrder.self) { request, context in
            let actor = try context.requireActor()
            let key = try context.metadata.requireIdempotencyKey()
            let buyer = try OrderBook.userId(actor)
            // A draft named by id is read first, then contacts named instead of inline recipients
            // are looked up, both outside any transaction. The key stands for the request as sent:
            // a retry of an order from a draft answers what the first did, whatever the draft became.
            if request.draftId != nil,
                let earlier = try await book.storedAnswer(for: request, idempotencyKey: key, actor: actor)
            {
                return earlier
            }
            let drafted = try await PrintingDrafts.resolve(
                request, actor: actor, requestId: context.metadata.requestId, drafts: drafts)
            let resolved = try await SocialContacts.resolve(
                drafted, buyer: buyer, requestId: context.metadata.requestId, contacts: contacts)
            return try await book.place(
                resolved, idempotencyKey: key, actor: actor, requestId: context.metadata.requestId,
                asSent: request.draftId == nil ? nil : request)
        }
        router.register(Orders.ListOrders.self) { request, context in
            try await book.list(request, actor: try context.requireActor())
        }
        router.register(Orders.ImageInOrders.self) { request, context in
            Orders.ImageInOrders.Reply(inUse: try await book.usesImage(request.id, actor: try context.requireActor()))
        }
        router.register(Orders.GetOrder.self) { request, context in
            try await book.detail(request.id, actor: try context.requireActor())
        }
        router.register(Orders.RefundOrder.self) { request, context in
            try await book.refund(
                request, idempotencyKey: try context.metadata.requireIdempotencyKey(),
                actor: try context.requireRole(.admin))
        }
        router.register(Orders.CancelOrder.self) { request, context in
            try await book.cancel(request.id, actor: try context.requireActor(), requestId: context.metadata.requestId)
        }
    }
}
