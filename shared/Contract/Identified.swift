/// A change to one thing named by `id`: the API sends the path's `id` beside the body's members in
/// one flat object, so `id` is read from that object and `Body` from the same object, and both
/// are written back into one.
///
/// `Body` must be an object, and it sees every member, `id` included: a body that refuses the
/// members it does not declare (``Swift/Decoder/refuseMembers(otherThan:)``) lists `id` among
/// those it allows.
public struct Identified<Body: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var id: String
    public var body: Body

    public init(id: String, body: Body) {
        self.id = id
        self.body = body
    }

    private enum CodingKeys: String, CodingKey { case id }

    public init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
        body = try Body(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
    }
}
