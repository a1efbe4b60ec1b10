/// An amount in minor units of an ISO 4217 currency. Every price the services exchange is one:
/// orders' totals and lines, social's catalogue and gift prices.
public struct Money: Codable, Sendable, Hashable {
    /// Minor units (cents for EUR, yen for JPY).
    public var amount: Int64
    /// ISO 4217 code, upper case.
    public var currency: String
    public init(amount: Int64, currency: String) {
        self.amount = amount
        self.currency = currency
    }
}
