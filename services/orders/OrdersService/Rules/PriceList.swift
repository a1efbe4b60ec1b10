import Contract
import PrintingContract

/// What printing a card costs by size, and what an e-card costs, in euros.
public struct PriceList: Sendable, Hashable {
    /// Printing cost per card, by size (`A6`, `A5`, `A4`).
    public let printing: [String: Price]
    /// Price of one e-card delivery; zero (the default) makes e-cards free.
    public let ecard: Price

    /// The sizes PostcardBuddy prints.
    public static let sizes = CardSize.names

    /// Creates a price list.
    public init(printing: [String: Price], ecard: Price) {
        self.printing = printing
        self.ecard = ecard
    }

    /// Parses `A6=1.49,A5=2.49,A4=3.99` (every size must be priced).
    public init(parsing text: String, ecard: String) throws(ServiceError) {
        var printing: [String: Price] = [:]
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, Self.sizes.contains(parts[0].uppercased()), let price = Price(parts[1]) else {
                throw ServiceError(.invalidArgument, "price list entry '\(entry)' is not SIZE=EUROS (A6=1.49)")
            }
            printing[parts[0].uppercased()] = price
        }
        for size in Self.sizes where printing[size] == nil {
            throw ServiceError(.invalidArgument, "the price list has no price for \(size)")
        }
        guard let ecardPrice = Price(allowingZero: ecard) else {
            throw ServiceError(.invalidArgument, "e-card price '\(ecard)' is not zero or a positive decimal")
        }
        self.init(printing: printing, ecard: ecardPrice)
    }

    /// The printing price of `size`, or a 400 naming `field`.
    public func printing(_ size: String, field: String) throws(ServiceError) -> Price {
        guard let price = printing[size] else {
            throw ServiceError(
                .invalidArgument, "unknown size '\(size)'; one of \(Self.sizes.joined(separator: ", "))",
                details: ["field": .string(field)])
        }
        return price
    }
}
