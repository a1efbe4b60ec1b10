import Contract
import Foundation
import SocialContract
import Testing

/// Social's requests read the payload the gateway makes from the API's request: the
/// parameters' members beside the body's, with the document's defaults.
@Suite("social: the API's payloads")
struct PayloadTests {
    static func decode<T: Decodable>(_ type: T.Type, _ json: String) -> Result<T, ServiceError> {
        Result { () throws(ServiceError) in try Wire.decodePayload(type, from: Array(json.utf8)) }
    }

    /// The field a refusal names, or nil when `result` decoded.
    static func refused<T>(_ result: Result<T, ServiceError>) -> String? {
        guard case .failure(let error) = result else { return nil }
        return error.field
    }

    @Test("a friend-request listing without a direction is the incoming one")
    func directionDefault() throws {
        let standard = try Self.decode(Social.ListFriendRequests.Request.self, #"{"limit": 5}"#).get()
        #expect(standard == .init(direction: .incoming, limit: 5))
        let outgoing = try Self.decode(Social.ListFriendRequests.Request.self, #"{"direction": "outgoing"}"#).get()
        #expect(outgoing.direction == .outgoing)
        #expect(Self.refused(Self.decode(Social.ListFriendRequests.Request.self, #"{"direction": "up"}"#)) == "direction")
    }

    @Test("a contact's edit is one flat object, its id beside the fields, both ways")
    func flatContactEdit() throws {
        let request = try Self.decode(
            Social.UpdateContact.Request.self, #"{"id": "c-1", "phone": "", "favourite": true}"#
        ).get()
        #expect(request == .init(id: "c-1", fields: .init(phone: "", favourite: true)))
        let encoded = try JSONSerialization.jsonObject(with: Wire.makeEncoder().encode(request)) as? [String: Any]
        #expect(encoded?["id"] as? String == "c-1" && encoded?["favourite"] as? Bool == true)
        #expect(encoded?["fields"] == nil)
        #expect(Self.refused(Self.decode(Social.UpdateContact.Request.self, #"{"name": "Eva"}"#)) == "id")
    }
}
