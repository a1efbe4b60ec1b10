import Contract
import Foundation
import HTTPTypes
import NIOCore
import OrdersContract
import PrintingContract
import ServiceKit

/// The header Stripe signs its webhooks with.
private let stripeSignature = HTTPField.Name("Stripe-Signature")!

extension BusRoute {
    /// The exceptions (``GatewayExceptions``) served by passing bytes through with a request of
    /// their own: PostcardBuddy's saved postcards (conditional on their revision), Stripe's
    /// webhook (its signed bytes) and the greetings (their language).
    static let all: [BusRoute] = [
        // PostcardBuddy's saved postcards: tagged by their revision, changed only under If-Match.
        .building("listMyPostcards", .get, "/v1/me/postcards", Printing.ListDrafts.self, access: .signedIn) {
            input throws(ServiceError) in
            PageRequest(cursor: try input.string("cursor"), limit: try input.integer("limit"))
        }.tagged(.content),
        .forwardingBody(
            "createMyPostcard", .post, "/v1/me/postcards", Printing.CreateDraft.self, access: .signedIn,
            status: .created
        ).tagged(.member),
        .building("getMyPostcard", .get, "/v1/me/postcards/{id}", Printing.GetDraft.self, access: .signedIn) {
            input in .init(id: input.path("id"))
        }.tagged(.member),
        .rawBody("updateMyPostcard", .put, "/v1/me/postcards/{id}", Printing.UpdateDraft.self, access: .signedIn) {
            input throws(ServiceError) in
            guard let ifMatch = input.headers[.ifMatch] else { throw Printing.DraftPrecondition.missing }
            let draft = try input.decodedBody(Printing.DraftContent.self)
            return .init(id: input.path("id"), ifMatch: ifMatch, draft: draft)
        }.tagged(.member),
        .building(
            "deleteMyPostcard", .delete, "/v1/me/postcards/{id}", Printing.DeleteDraft.self, access: .signedIn,
            status: .noContent
        ) { input throws(ServiceError) in
            guard let ifMatch = input.headers[.ifMatch] else { throw Printing.DraftPrecondition.missing }
            return .init(id: input.path("id"), ifMatch: ifMatch)
        },
        .rawBody("receiveStripeWebhook", .post, "/v1/webhooks/stripe", Orders.StripeWebhook.self, access: .anyone) {
            input throws(ServiceError) in
            guard let signature = input.headers[stripeSignature], !signature.isEmpty else {
                throw ServiceError.invalidArgument("the Stripe-Signature header is missing", field: "Stripe-Signature")
            }
            guard let body = input.body, body.readableBytes > 0 else {
                throw ServiceError(.invalidArgument, "send the event as a JSON body")
            }
            return Orders.StripeWebhook.Request(payload: String(buffer: body), signature: signature)
        },
    ] + greetings
}
