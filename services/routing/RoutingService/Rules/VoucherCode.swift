/// Reward voucher codes: 20 characters of Crockford's base32 (100 random bits) in four groups,
/// e.g. `7QK2M-XW4TD-9HCRN-0BZ5E`, readable aloud and typed without confusing 0/O or 1/I/L.
public enum VoucherCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// A new random code.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }

    /// A code drawn from `generator`.
    public static func make(using generator: inout some RandomNumberGenerator) -> String {
        var characters: [Character] = []
        for index in 0..<20 {
            if index > 0, index % 5 == 0 { characters.append("-") }
            characters.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
        }
        return String(characters)
    }

    /// The canonical form of a code as a person typed it (any case, spaces or dashes anywhere,
    /// O for 0, I or L for 1); nil when it cannot be a code.
    public static func canonical(_ typed: String) -> String? {
        var characters: [Character] = []
        for character in typed.uppercased() where character != "-" && character != " " {
            switch character {
            case "O": characters.append("0")
            case "I", "L": characters.append("1")
            default:
                guard alphabet.contains(character) else { return nil }
                characters.append(character)
            }
        }
        guard characters.count == 20 else { return nil }
        return stride(from: 0, to: 20, by: 5).map { String(characters[$0..<$0 + 5]) }.joined(separator: "-")
    }
}
