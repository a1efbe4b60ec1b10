import Contract
import Foundation
import Logging
import OrdersContract
import PrintingContract
import Store
import Synchronization

/// Quotes and currencies: prices a postcard at the current rates and the active postage
/// tariff, remembers the quote for `validity`, lists and loads rates.
public struct QuoteHandler: Sendable {
    let quotes: QuoteStore
    let rates: RatesStore
    let cache: RatesCache
    /// The listing of one rate set, encoded.
    private let encodedListing = EncodedListing()

    private final class EncodedListing: Sendable {
        let kept = Mutex<(setId: Int64, json: [UInt8])?>(nil)
    }
    let pricing: Pricing
    let tariffs: any PostageTariffSource
    let clock: any WallClock
    let logger: Logger
    /// How long a quote's rate holds for an order.
    public let validity: TimeInterval

    /// Creates the handler over its stores.
    public init(
        quotes: QuoteStore, rates: RatesStore, pricing: Pricing, tariffs: any PostageTariffSource,
        validity: TimeInterval, ratesRefresh: Duration = .seconds(5), clock: any WallClock, logger: Logger
    ) {
        self.quotes = quotes
        self.rates = rates
        self.cache = RatesCache(ttl: ratesRefresh)
        self.pricing = pricing
        self.tariffs = tariffs
        self.validity = validity
        self.clock = clock
        self.logger = logger
    }

    /// Prices `request`, stores the quote and returns it with its id and expiry.
    public func quote(_ request: Orders.Quote.Request, actor: Actor?, metadata: RequestMetadata) async throws
        -> Orders.Quote.Reply
    {
        let currency = try Self.currency(request.currency ?? ExchangeRates.base)
        let set = try await currentRates()
        let breakdown: PriceBreakdown
        switch Orders.OrderKind(rawValue: request.kind ?? Orders.OrderKind.postcard.rawValue) {
        case .postcard:
            guard let size = request.size?.uppercased() else {
                throw ServiceError.invalidArgument("a postcard quote names its size", field: "size")
            }
            var countries: [String] = []
            for (index, recipient) in request.recipients.enumerated() {
                guard let country = recipient.country else {
                    throw ServiceError.invalidArgument(
                        "a postcard's recipient has a country", field: "recipients[\(index)].country")
                }
                countries.append(country.uppercased())
            }
            let tariff = try await tariffs.tariff(size: size, countries: countries, metadata: metadata)
            breakdown = try pricing.postcard(
                size: size, countries: countries, currency: currency, rates: set.rates, tariff: tariff)
        case .ecard:
            // Nothing is printed or posted: one e-card line per recipient, free by default. A size
            // is unused, but one that is not a size is refused as the document says.
            if let size = request.size, CardSize(named: size) == nil {
                throw ServiceError.invalidArgument("size is A6, A5 or A4", field: "size")
            }
            breakdown = try pricing.ecard(
                recipients: request.recipients.count, currency: currency, rates: set.rates, field: "recipients")
        case .gift, nil:
            throw ServiceError.invalidArgument("kind is postcard or ecard", field: "kind")
        }
        let id = UUID()
        let now = clock.now()
        let expires = now.addingTimeInterval(validity)
        let userId = actor.flatMap { UUID(uuidString: $0.userId) }
        try await quotes.insert(
            id, userId: userId, rateSetId: set.id, currency: currency, breakdown: breakdown, now: now, expires: expires)
        return Orders.Quote.Reply(
            quoteId: id.uuidString.lowercased(), lines: breakdown.lines, total: breakdown.total,
            rateDate: breakdown.rateDate, rate: breakdown.rate, expiresAt: expires)
    }

    /// The rate set a quote holds, if it is the caller's (or anonymous), in `currency`, and
    /// still valid; `failed_precondition` when it has expired.
    func quotedRates(_ quoteId: String, userId: UUID, currency: String) async throws -> RatesStore.Stored {
        guard let id = UUID(uuidString: quoteId) else {
            throw ServiceError.invalidArgument("quoteId is not a UUID", field: "quoteId")
        }
        // The store judges the expiry (``StoredQuote/valid``).
        if let quote = try await quotes.find(id, now: clock.now()), quote.owner == nil || quote.owner == userId {
            let (quoted, expires, valid) = (quote.currency, quote.expiresAt, quote.valid)
            guard quoted == currency else {
                throw ServiceError.invalidArgument(
                    "the quote is in \(quoted), the order in \(currency)", field: "currency")
            }
            guard valid else {
                throw ServiceError(
                    .failedPrecondition, "the quote expired at \(expires); ask for a new one",
                    details: ["field": "quoteId", "reason": "quote_expired"])
            }
            if let set = try await rates.set(id: quote.rateSetId) { return set }
        }
        throw ServiceError(.notFound, "no such quote", details: ["field": "quoteId"])
    }

    /// The rates in force (cached for a few seconds).
    func currentRates() async throws -> RatesStore.Stored {
        try await cache.current(from: rates)
    }

    /// The current rates as currencies.
    public func currencies() async throws -> Orders.ListCurrencies.Reply {
        Self.listing(try await currentRates().rates)
    }

    /// The current rates as currencies, encoded (kept encoded until the rate set changes: every
    /// app asks for them at launch).
    public func currenciesJSON() async throws -> [UInt8] {
        let current = try await currentRates()
        if let kept = encodedListing.kept.withLock({ $0 }), kept.setId == current.id { return kept.json }
        let json = Array(try Wire.makeEncoder().encode(Self.listing(current.rates)))
        encodedListing.kept.withLock { $0 = (current.id, json) }
        return json
    }

    /// Parses and stores ECB rates sent by an operator; a bad document changes nothing.
    public func load(xml: String, actor: Actor) async throws -> Orders.ListCurrencies.Reply {
        let parsed = try ECBRatesParser.parse(Data(xml.utf8))
        cache.replace(with: try await rates.save(parsed, source: "admin \(actor.userId)", now: clock.now()))
        logger.info("currency rates loaded", metadata: ["rateDate": "\(parsed.date)", "by": "\(actor.userId)"])
        return Self.listing(parsed)
    }

    static func listing(_ rates: ExchangeRates) -> Orders.ListCurrencies.Reply {
        Orders.ListCurrencies.Reply(
            base: ExchangeRates.base, rateDate: rates.date,
            currencies: rates.rates.keys.sorted().map {
                Orders.Currency(code: $0, exponent: CurrencyTable.exponent($0), rate: rates.rates[$0]!.description)
            })
    }

    /// A well-formed, upper-cased currency code, or a 400 naming `field`.
    static func currency(_ code: String, field: String = "currency") throws(ServiceError) -> String {
        let code = code.uppercased()
        guard CurrencyTable.isWellFormed(code) else {
            throw ServiceError.invalidArgument("'\(code)' is not an ISO 4217 currency code", field: field)
        }
        return code
    }
}
