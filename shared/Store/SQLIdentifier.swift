/// Validation of the schema and table names that the store splices into SQL text (identifiers
/// cannot be bound as parameters), so that no caller-supplied text reaches SQL unchecked.
enum SQLIdentifier {
    /// Returns `name` if it is a plain lower-case identifier (`[a-z_][a-z0-9_]*`, at most 63
    /// bytes); throws ``StoreError/Code/invalidIdentifier`` naming it otherwise.
    static func validated(_ name: String, role: String) throws -> String {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63 else {
            throw StoreError(.invalidIdentifier, "\(role) name '\(name)' must be 1 to 63 characters long")
        }
        func isLetter(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7A) || b == 0x5F }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        guard isLetter(first), bytes.allSatisfy({ isLetter($0) || isDigit($0) }) else {
            throw StoreError(
                .invalidIdentifier,
                "\(role) name '\(name)' must be lower-case letters, digits and '_' and must not start with a digit"
            )
        }
        return name
    }
}
