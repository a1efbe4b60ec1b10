/// A rate as published, "units of a currency per euro", kept exactly as a decimal
/// (`mantissa / 10^scale`) so that conversions never go through floating point.
public struct ExchangeRate: Sendable, Hashable, CustomStringConvertible {
    /// The digits without the decimal point (`10823` for `1.0823`).
    public let mantissa: Int64
    /// How many of them follow the point (`4` for `1.0823`).
    public let scale: Int

    /// One euro per euro.
    public static let one = ExchangeRate(mantissa: 1, scale: 0)

    /// Creates a rate; `mantissa` must be positive.
    public init(mantissa: Int64, scale: Int) {
        precondition(mantissa > 0 && (0...12).contains(scale), "a rate is positive with at most 12 decimals")
        self.mantissa = mantissa
        self.scale = scale
    }

    /// Parses a plain positive decimal such as `1.0823` or `162.73`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty,
            whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber)
        else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.allSatisfy(\.isASCII), fraction.allSatisfy(\.isNumber), fraction.count <= 12,
            parts.count == 1 || !fraction.isEmpty, whole.count + fraction.count <= 17,
            let value = Int64(whole + fraction), value > 0
        else { return nil }
        self.init(mantissa: value, scale: fraction.count)
    }

    /// The rate as a decimal string, e.g. `1.0823`.
    public var description: String {
        guard scale > 0 else { return String(mantissa) }
        var digits = String(mantissa)
        if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
        let point = digits.index(digits.endIndex, offsetBy: -scale)
        return digits[..<point] + "." + digits[point...]
    }
}
