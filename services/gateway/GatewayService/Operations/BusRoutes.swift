import AuthContract
import Contract
import Foundation
import HTTPTypes
import NIOCore
import OrdersContract
import RoutingContract
import ServiceKit

/// The header Stripe signs its webhooks with.
private let stripeSignature = HTTPField.Name("Stripe-Signature")!

extension BusRoute {
    /// Every endpoint the gateway serves by passing bytes through (see ``BusRoute``): the reads
    /// and computations apps call most (NavUP's locate, route and venue search every few seconds
    /// per student; every app's profile and currencies at launch).
    static let all: [BusRoute] = [
        .building("getMe", .get, "/v1/me", Auth.GetProfile.self, access: .signedIn) { _ in Empty() },
        .building("listCurrencies", .get, "/v1/currencies", Orders.ListCurrencies.self, access: .anyone) { _ in
            Empty()
        },
        .forwardingBody("locate", .post, "/v1/campus/locate", Routing.Locate.self, access: .anyone),
        .forwardingBody("planRoute", .post, "/v1/campus/routes", Routing.PlanRoute.self, access: .anyone),
        .building("searchVenues", .get, "/v1/campus/venues", Routing.SearchVenues.self, access: .anyone) {
            input throws(ServiceError) in
            var near: (lat: Double, lon: Double)?
            if let text = try input.string("near") {
                let parts = text.split(separator: ",", omittingEmptySubsequences: false)
                    .map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard parts.count == 2, let lat = parts[0], let lon = parts[1] else {
                    throw ServiceError.invalidArgument("near must be lat,lon, e.g. -25.7545,28.2314", field: "near")
                }
                near = (lat, lon)
            }
            return .init(
                q: try input.string("q"), kind: try input.string("kind"), nearLat: near?.lat, nearLon: near?.lon,
                limit: try input.integer("limit"), radius: try input.number("radius"),
                cursor: try input.string("cursor"))
        },
        .building("getVenue", .get, "/v1/campus/venues/{id}", Routing.GetVenue.self, access: .anyone) { input in
            .init(id: input.path("id"))
        },
        .rawBody("receiveStripeWebhook", .post, "/v1/webhooks/stripe", Orders.StripeWebhook.self, access: .anyone) {
            input throws(ServiceError) in
            guard let body = input.body, body.readableBytes > 0 else {
                throw ServiceError(.invalidArgument, "send the event as a JSON body")
            }
            return Orders.StripeWebhook.Request(
                payload: String(buffer: body), signature: input.headers[stripeSignature])
        },
    ]
}
