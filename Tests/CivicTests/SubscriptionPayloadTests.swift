import CivicContract
import Contract
import Foundation
import Testing

/// The subscription and highlight requests read the payload the gateway makes from the API's
/// request: the secret from its header, no member the document does not declare, `subjects`
/// left out as every subject.
@Suite("civic: the API's payloads")
struct SubscriptionPayloadTests {
    static func decode<T: Decodable>(_ type: T.Type, _ json: String) -> Result<T, ServiceError> {
        Result { () throws(ServiceError) in try Wire.decodePayload(type, from: Array(json.utf8)) }
    }

    /// The field a refusal names, or nil when `result` decoded.
    static func refused<T>(_ result: Result<T, ServiceError>) -> String? {
        guard case .failure(let error) = result else { return nil }
        return error.field
    }

    static let city = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"

    @Test("a new subscription: subjects may be left out; another member is refused naming the body")
    func create() throws {
        let request = try Self.decode(
            Civic.CreateSubscription.Request.self,
            #"{"deviceToken": "t", "platform": "ios", "app": "politimap", "jurisdictions": ["\#(Self.city)"]}"#
        ).get()
        #expect(request.subjects.isEmpty && request.apnsEnvironment == nil)
        let extra = Self.decode(
            Civic.CreateSubscription.Request.self,
            #"{"deviceToken": "t", "platform": "ios", "app": "politimap", "jurisdictions": [], "colour": 1}"#)
        #expect(Self.refused(extra) == "body")
        let missing = Self.decode(Civic.CreateSubscription.Request.self, #"{"deviceToken": "t", "platform": "ios"}"#)
        #expect(Self.refused(missing) == "app")
    }

    @Test("a change or an end: the secret is the X-Subscription-Secret member, both ways")
    func secretFromTheHeader() throws {
        let update = try Self.decode(
            Civic.UpdateSubscription.Request.self,
            #"{"id": "s-1", "X-Subscription-Secret": "k", "jurisdictions": ["\#(Self.city)"], "deviceToken": null}"#
        ).get()
        #expect(update == .init(id: "s-1", secret: "k", jurisdictions: [Self.city]))
        let encoded = try JSONSerialization.jsonObject(with: Wire.makeEncoder().encode(update)) as? [String: Any]
        #expect(encoded?["X-Subscription-Secret"] as? String == "k" && encoded?["secret"] == nil)
        let withSecret = #"{"id": "s-1", "secret": "k", "jurisdictions": []}"#
        #expect(Self.refused(Self.decode(Civic.UpdateSubscription.Request.self, withSecret)) == "body")
        let end = try Self.decode(Civic.DeleteSubscription.Request.self, #"{"id": "s-1", "X-Subscription-Secret": "k"}"#).get()
        #expect(end == .init(id: "s-1", secret: "k"))
        #expect(Self.refused(Self.decode(Civic.DeleteSubscription.Request.self, #"{"id": "s-1"}"#)) == "X-Subscription-Secret")
    }

    @Test("a highlight takes `highlighted` beside the path's bill and nothing else")
    func highlight() throws {
        let request = try Self.decode(Civic.SetHighlight.Request.self, #"{"billId": "b", "highlighted": true}"#).get()
        #expect(request == .init(billId: "b", highlighted: true))
        let extra = #"{"billId": "b", "highlighted": true, "pinned": true}"#
        #expect(Self.refused(Self.decode(Civic.SetHighlight.Request.self, extra)) == "body")
    }
}
