import Contract
import Foundation

/// A request's payload as a worker reads it from the gateway's JSON, for tests of a contract's
/// `Codable`: what decodes, the field a refusal names, and the object written back.
public enum WirePayload {
    /// `json` decoded as a worker decodes a payload, or its refusal.
    public static func decode<T: Decodable>(_ type: T.Type, _ json: String) -> Result<T, ServiceError> {
        Result { () throws(ServiceError) in try Wire.decodePayload(type, from: Array(json.utf8)) }
    }

    /// The field a refusal names, or nil when `result` decoded.
    public static func refused<T>(_ result: Result<T, ServiceError>) -> String? {
        guard case .failure(let error) = result, case .string(let field) = error.details?["field"] else { return nil }
        return field
    }

    /// The field the refusal of `json` names, or nil when it decodes.
    public static func refused<T: Decodable>(_ type: T.Type, _ json: String) -> String? {
        refused(decode(type, json))
    }

    /// `value` as it is sent on the bus, read back as a JSON object (nil when it is not one).
    public static func object(_ value: some Encodable) throws -> [String: Any]? {
        try JSONSerialization.jsonObject(with: Data(Wire.encodePayload(value))) as? [String: Any]
    }
}
