import CivicContract
import Contract
import Foundation
import TestSupport
import Testing

/// The subscription and highlight requests read the payload the gateway makes from the API's
/// request: the secret from its header, no member the document does not declare, `subjects`
/// left out as every subject.
@Suite("civic: the API's payloads")
struct SubscriptionPayloadTests {
    static let city = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"

    @Test("a new subscription: subjects may be left out; another member is refused naming the body")
    func create() throws {
        let request = try WirePayload.decode(
            Civic.CreateSubscription.Request.self,
            #"{"deviceToken": "t", "platform": "ios", "app": "politimap", "jurisdictions": ["\#(Self.city)"]}"#
        ).get()
        #expect(request.subjects.isEmpty && request.apnsEnvironment == nil)
        let extra = WirePayload.decode(
            Civic.CreateSubscription.Request.self,
            #"{"deviceToken": "t", "platform": "ios", "app": "politimap", "jurisdictions": [], "colour": 1}"#)
        #expect(WirePayload.refused(extra) == "body")
        let missing = #"{"deviceToken": "t", "platform": "ios"}"#
        #expect(WirePayload.refused(Civic.CreateSubscription.Request.self, missing) == "app")
    }

    @Test("a change or an end: the secret is the X-Subscription-Secret member, both ways")
    func secretFromTheHeader() throws {
        let update = try WirePayload.decode(
            Civic.UpdateSubscription.Request.self,
            #"{"id": "s-1", "X-Subscription-Secret": "k", "jurisdictions": ["\#(Self.city)"], "deviceToken": null}"#
        ).get()
        #expect(update == .init(id: "s-1", secret: "k", jurisdictions: [Self.city]))
        let encoded = try WirePayload.object(update)
        #expect(encoded?["X-Subscription-Secret"] as? String == "k" && encoded?["secret"] == nil)
        let withSecret = #"{"id": "s-1", "secret": "k", "jurisdictions": []}"#
        #expect(WirePayload.refused(Civic.UpdateSubscription.Request.self, withSecret) == "body")
        let end = try WirePayload.decode(
            Civic.DeleteSubscription.Request.self, #"{"id": "s-1", "X-Subscription-Secret": "k"}"#
        ).get()
        #expect(end == .init(id: "s-1", secret: "k"))
        let noSecret = #"{"id": "s-1"}"#
        #expect(WirePayload.refused(Civic.DeleteSubscription.Request.self, noSecret) == "X-Subscription-Secret")
    }

    @Test("a highlight takes `highlighted` beside the path's bill and nothing else")
    func highlight() throws {
        let request = try WirePayload.decode(
            Civic.SetHighlight.Request.self, #"{"billId": "b", "highlighted": true}"#
        ).get()
        #expect(request == .init(billId: "b", highlighted: true))
        let extra = #"{"billId": "b", "highlighted": true, "pinned": true}"#
        #expect(WirePayload.refused(Civic.SetHighlight.Request.self, extra) == "body")
    }
}
