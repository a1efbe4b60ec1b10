/// A type written as JSON by hand on the request path (NavUP's locate and route replies,
/// request metadata), where `JSONEncoder`'s containers and tree cost more than the request's own
/// work. ``Wire/encodeReply(_:)`` prefers it to the `Encodable` conformance.
///
/// `appendJSON(to:)` must write what `Wire.makeEncoder()` would: the same members, keys sorted,
/// absent optionals left out. Numbers may be spelled differently (`1.0` for `1`), as both read
/// back to the same value.
public protocol WireJSONEncodable: Encodable {
    /// Appends this value as JSON; throws `EncodingError.invalidValue` for a number JSON cannot
    /// hold (infinity, NaN), as `JSONEncoder` does.
    func appendJSON(to json: inout [UInt8]) throws(EncodingError)
}

extension WireJSONEncodable {
    /// This value as JSON bytes.
    public func jsonBytes() throws(EncodingError) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(128)
        try appendJSON(to: &json)
        return json
    }
}

extension Array where Element == UInt8 {
    /// Appends `"key":`, or `,"key":` when `first` is false; `key` needs no escaping.
    public mutating func appendJSONKey(_ key: StaticString, first: Bool = false) {
        if !first { append(UInt8(ascii: ",")) }
        append(UInt8(ascii: "\""))
        key.withUTF8Buffer { append(contentsOf: $0) }
        append(contentsOf: #"":"#.utf8)
    }

    /// Appends an integer in decimal.
    public mutating func appendJSONNumber(_ value: some BinaryInteger) {
        guard value != 0 else { return append(UInt8(ascii: "0")) }
        if value < 0 { append(UInt8(ascii: "-")) }
        let start = count
        var rest = value.magnitude
        while rest > 0 {
            let (quotient, digit) = rest.quotientAndRemainder(dividingBy: 10)
            append(UInt8(ascii: "0") + UInt8(digit))
            rest = quotient
        }
        self[start...].reverse()
    }

    /// Appends a finite number in its shortest form that reads back the same; infinity and NaN
    /// throw, as `JSONEncoder` does.
    public mutating func appendJSONNumber(_ value: Double) throws(EncodingError) {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: [], debugDescription: "\(value) is not a JSON number"))
        }
        if value == value.rounded(.towardZero), value.magnitude < 1e15 {
            appendJSONNumber(Int64(value))  // what JSONEncoder writes too: `3`, not `3.0`
        } else {
            append(contentsOf: value.description.utf8)
        }
    }

    /// Appends an array of values written by hand.
    public mutating func appendJSONArray(_ elements: [some WireJSONEncodable]) throws(EncodingError) {
        append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            try element.appendJSON(to: &self)
        }
        append(UInt8(ascii: "]"))
    }

    /// Appends `true` or `false`.
    public mutating func appendJSONBool(_ value: Bool) {
        append(contentsOf: (value ? "true" : "false").utf8)
    }
}
