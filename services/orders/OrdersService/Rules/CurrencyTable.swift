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
}
