import Logging
import PostgresNIO

/// The orders service's stores on one database, made together.
public struct OrdersStores: Sendable {
    public let orders: OrderStore
    public let ledger: LedgerStore
    public let keys: IdempotencyStore
    public let refunds: RefundStore
    public let quotes: QuoteStore
    public let rates: RatesStore
    public let cards: PaymentMethodStore
    public let stripeEvents: StripeEventStore
    /// The sandbox provider's record of its calls.
    public let sandbox: SandboxPaymentStore

    /// Every store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        orders = OrderStore(client: client, logger: logger)
        ledger = LedgerStore()
        keys = IdempotencyStore(client: client, logger: logger)
        refunds = RefundStore(client: client, logger: logger)
        quotes = QuoteStore(client: client, logger: logger)
        rates = RatesStore(client: client, logger: logger)
        cards = PaymentMethodStore(client: client, logger: logger)
        stripeEvents = StripeEventStore(client: client, logger: logger)
        sandbox = SandboxPaymentStore(client: client, logger: logger)
    }
}
