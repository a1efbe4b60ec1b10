extension Decoder {
    /// Refuses an object with a member `Key` does not declare, for a request whose schema allows
    /// no others (`additionalProperties: false`). The refusal names the body, not the member: its
    /// name is the client's text.
    public func refuseMembers<Key: CodingKey & CaseIterable>(otherThan keys: Key.Type) throws {
        let known = Set(Key.allCases.map(\.stringValue))
        let object = try self.container(keyedBy: AnyMember.self)
        guard object.allKeys.allSatisfy({ known.contains($0.stringValue) }) else {
            throw ServiceError.invalidArgument("the body has a member this request does not take", field: "body")
        }
    }
}

/// Any member's name, to list an object's members.
private struct AnyMember: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
