import Contract
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OrdersContract
import ServiceKit
import Testing

@testable import GatewayService

/// `POST /v1/webhooks/stripe` through the gateway: the body reaches orders byte for byte (the
/// signature covers those bytes) with the `Stripe-Signature` header, and no sign-in is needed.
@Suite("gateway: the Stripe webhook route")
struct StripeWebhookRouteTests {
    @Test("the exact body and the Stripe-Signature header reach orders; orders' refusal keeps its status")
    func passesRawBody() async throws {
        var router = OperationRouter(service: .orders, logger: BusRouteTests.logger)
        router.register(Orders.StripeWebhook.self) { request, _ in
            guard request.signature == "t=1,v1=abc" else {
                throw ServiceError(.invalidArgument, "bad signature", details: ["field": "Stripe-Signature"])
            }
            // Echoes whether the payload is the body as sent (spacing and key order kept).
            return .init(received: true, duplicate: request.payload == #"{ "type":"ping",  "id":"evt_1" }"#)
        }
        try await GatewayTests.withWorker(router) { endpoint in
            try await GatewayTests().app(broker: endpoint, services: "orders").test(.router) { client in
                let body = ByteBuffer(string: #"{ "type":"ping",  "id":"evt_1" }"#)
                let signed = try await client.execute(
                    uri: "/v1/webhooks/stripe", method: .post,
                    headers: [.contentType: "application/json", HTTPField.Name("Stripe-Signature")!: "t=1,v1=abc"],
                    body: body)
                #expect(signed.status == .ok)
                let reply = try BusRouteTests.json(signed)
                #expect(reply["received"] as? Bool == true && reply["duplicate"] as? Bool == true)
                let unsigned = try await client.execute(
                    uri: "/v1/webhooks/stripe", method: .post, headers: [.contentType: "application/json"], body: body)
                #expect(unsigned.status == .badRequest)
                #expect(
                    (try BusRouteTests.json(unsigned)["details"] as? [String: Any])?["field"] as? String
                        == "Stripe-Signature")
                let empty = try await client.execute(
                    uri: "/v1/webhooks/stripe", method: .post, headers: [.contentType: "application/json"])
                #expect(empty.status == .badRequest)
            }
        }
    }
}
