import Contract
import Foundation
import SocialContract
import TestSupport
import Testing

/// Social's requests read the payload the gateway makes from the API's request: the
/// parameters' members beside the body's, with the document's defaults.
@Suite("social: the API's payloads")
struct PayloadTests {
    @Test("a friend-request listing without a direction is the incoming one")
    func directionDefault() throws {
        let standard = try WirePayload.decode(Social.ListFriendRequests.Request.self, #"{"limit": 5}"#).get()
        #expect(standard == .init(direction: .incoming, limit: 5))
        let outgoing = try WirePayload.decode(
            Social.ListFriendRequests.Request.self, #"{"direction": "outgoing"}"#
        ).get()
        #expect(outgoing.direction == .outgoing)
        #expect(WirePayload.refused(Social.ListFriendRequests.Request.self, #"{"direction": "up"}"#) == "direction")
    }

    @Test("a contact's edit is one flat object, its id beside the fields, both ways")
    func flatContactEdit() throws {
        let request = try WirePayload.decode(
            Social.UpdateContact.Request.self, #"{"id": "c-1", "phone": "", "favourite": true}"#
        ).get()
        #expect(request == .init(id: "c-1", body: .init(phone: "", favourite: true)))
        let encoded = try WirePayload.object(request)
        #expect(encoded?["id"] as? String == "c-1" && encoded?["favourite"] as? Bool == true)
        #expect(encoded?["fields"] == nil && encoded?["body"] == nil)
        #expect(WirePayload.refused(Social.UpdateContact.Request.self, #"{"name": "Eva"}"#) == "id")
    }
}
