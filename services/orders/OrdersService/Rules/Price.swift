import Contract
import Foundation

/// A price as an exact decimal (in euros unless said otherwise) (`mantissa / 10^scale`), e.g. `1.495`; prices in the
/// price list and the postage tariff may be finer than a cent and are rounded up when charged.
public struct Price: Sendable, Hashable, CustomStringConvertible {
    /// The digits without the decimal point.
    public let mantissa: Int64
    /// How many of them follow the point.
    public let scale: Int

    /// Creates a price.
    public init(mantissa: Int64, scale: Int) {
        self.mantissa = mantissa
        self.scale = scale
    }

    /// Parses a decimal such as `1.49`; nil unless it is a positive decimal.
    public init?(_ text: String) {
        guard let value = ExchangeRate(text) else { return nil }
        self.init(mantissa: value.mantissa, scale: value.scale)
    }

    /// Parses a decimal that may also be zero (`0`, `0.00`): a price that is given away.
    public init?(allowingZero text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0 == "0" || $0 == "." }), trimmed.first != ".",
            trimmed.filter({ $0 == "." }).count <= 1
        {
            self.init(mantissa: 0, scale: 0)
            return
        }
        self.init(trimmed)
    }

    /// Whether nothing is charged.
    public var isFree: Bool { mantissa == 0 }

    /// Minor units of `currency` at `rates`, rounded up to the next minor unit.
    public func amount(in currency: String, rates: ExchangeRates) throws(ServiceError) -> Int64 {
        try amount(in: currency, from: ExchangeRates.base, rates: rates)
    }

    /// Minor units of `currency` for this price in `source` (a postage tariff's currency), at
    /// `rates`, rounded up to the next minor unit.
    public func amount(in currency: String, from source: String, rates: ExchangeRates) throws(ServiceError) -> Int64 {
        if isFree { _ = try rates.rate(currency); return 0 }
        guard let sourceRate = rates.rates[source] else {
            throw ServiceError(.failedPrecondition, "prices in \(source) cannot be converted: no exchange rate for it")
        }
        return ExchangeRates.convert(
            mantissa, source: sourceRate, sourceExponent: scale, target: try rates.rate(currency),
            targetExponent: CurrencyTable.exponent(currency))
    }

    public var description: String {
        isFree ? "0 EUR" : "\(ExchangeRate(mantissa: max(1, mantissa), scale: scale)) EUR"
    }
}
