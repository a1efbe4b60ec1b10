/// ISO 4217 minor-unit exponents: how many digits follow the decimal point in a currency.
public enum CurrencyTable {
    /// Currencies without minor units in everyday prices (ISO 4217 exponent 0).
    public static let zeroDecimal: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
        "XOF", "XPF",
    ]
    /// Currencies with three decimal digits.
    public static let threeDecimal: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// The exponent of `code` (2 for most currencies).
    public static func exponent(_ code: String) -> Int {
        if zeroDecimal.contains(code) { return 0 }
        if threeDecimal.contains(code) { return 3 }
        return 2
    }

    /// Whether `code` looks like an ISO 4217 code (three ASCII capitals).
    public static func isWellFormed(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { $0 >= 65 && $0 <= 90 }
    }

    /// `amount` minor units of `code` as a buyer reads it: `12.50 EUR`, `1200 JPY`, `1.005 KWD`
    /// (exact: integer arithmetic, no rounding).
    public static func display(_ amount: Int64, _ code: String) -> String {
        let digits = exponent(code)
        guard digits > 0 else { return "\(amount) \(code)" }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let magnitude = amount.magnitude
        let whole = magnitude / UInt64(scale)
        let fraction = String(magnitude % UInt64(scale))
        let padded = String(repeating: "0", count: digits - fraction.count) + fraction
        return "\(amount < 0 ? "-" : "")\(whole).\(padded) \(code)"
    }
}
