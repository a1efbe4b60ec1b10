import Foundation

/// A reply whose success status the owning service decides: the document lists both 201 (made
/// now) and 200 (known already, nothing changed) for the operation. The wire carries the choice
/// in the status frame (`created` or `ok`) and the body as the payload, so the gateway answers
/// the body as it came with the status the service chose.
public struct Outcome<Body: Codable & Sendable>: Sendable {
    /// The reply's body.
    public var body: Body
    /// Whether the call made something new (201) rather than finding it (200).
    public var created: Bool

    public init(_ body: Body, created: Bool) {
        self.body = body
        self.created = created
    }
}

extension Outcome: Equatable where Body: Equatable {}

/// What ``Wire`` needs of an ``Outcome`` without knowing its body's type.
public protocol OutcomeReply {
    /// Whether the reply's status frame is `created`.
    var created: Bool { get }
    /// The body's payload JSON.
    func bodyPayload() throws -> [UInt8]
    /// The reply from its status and payload.
    static func decode(payload: [UInt8], created: Bool) throws -> Self
}

extension Outcome: OutcomeReply {
    public func bodyPayload() throws -> [UInt8] { try Wire.encodePayload(body) }

    public static func decode(payload: [UInt8], created: Bool) throws -> Self {
        Self(try Wire.makeDecoder().decode(Body.self, from: Data(payload)), created: created)
    }
}

// `Outcome` is Codable only so that it can be an operation's `Reply`; on the wire it is its body.
extension Outcome: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try Body(from: decoder), created: false)
    }

    public func encode(to encoder: any Encoder) throws { try body.encode(to: encoder) }
}
