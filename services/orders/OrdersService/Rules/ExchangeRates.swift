import Contract

/// One day's euro reference rates: how many units of each currency one euro buys.
public struct ExchangeRates: Sendable, Hashable {
    /// The base currency of the rates (ECB publishes against the euro).
    public static let base = "EUR"

    /// The reference date, `YYYY-MM-DD`.
    public let date: String
    /// Units per euro, by ISO 4217 code; the euro itself is implied.
    public let rates: [String: ExchangeRate]

    /// Creates a rate set.
    public init(date: String, rates: [String: ExchangeRate]) {
        self.date = date
        var rates = rates
        rates[Self.base] = .one
        self.rates = rates
    }

    /// The rate of `currency`, or a 400 naming `field` when there is none.
    public func rate(_ currency: String, field: String = "currency") throws(ServiceError) -> ExchangeRate {
        guard let rate = rates[currency] else {
            throw ServiceError(
                .invalidArgument, "no exchange rate for currency '\(currency)'; see GET /v1/currencies",
                details: ["field": .string(field)])
        }
        return rate
    }

    /// Converts `amount` minor units of `from` to minor units of `to`, **rounded up** to the
    /// next minor unit of `to` (exact integer arithmetic, no floating point).
    public func convert(_ amount: Int64, from: String, to: String) throws(ServiceError) -> Int64 {
        if from == to { return amount }
        let source = try rate(from)
        let target = try rate(to)
        return Self.convert(
            amount, source: source, sourceExponent: CurrencyTable.exponent(from), target: target,
            targetExponent: CurrencyTable.exponent(to))
    }

    /// `amount × (target / source)`, rescaled between the exponents, rounded up (ceiling).
    ///
    /// With rates `m/10^s` (units per euro) and exponents `e`: the result is
    /// `amount × m_t × 10^s_s × 10^e_t / (m_s × 10^s_t × 10^e_s)`, computed in 128 bits.
    public static func convert(
        _ amount: Int64, source: ExchangeRate, sourceExponent: Int, target: ExchangeRate, targetExponent: Int
    ) -> Int64 {
        var numerator = Int128(amount) * Int128(target.mantissa) * power(source.scale) * power(targetExponent)
        var denominator = Int128(source.mantissa) * power(target.scale) * power(sourceExponent)
        let common = gcd(numerator.magnitude, denominator.magnitude)
        if common > 1 {
            numerator /= Int128(common)
            denominator /= Int128(common)
        }
        let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        let rounded = remainder > 0 ? quotient + 1 : quotient
        return Int64(clamping: rounded)
    }

    private static func power(_ exponent: Int) -> Int128 {
        var result: Int128 = 1
        for _ in 0..<exponent { result *= 10 }
        return result
    }

    private static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
