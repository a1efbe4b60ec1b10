import AuthContract
import CivicContract
import Contract
import Foundation
import HTTPTypes
import NIOCore
import OrdersContract
import PrintingContract
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
        // The admin's list of accounts: auth checks the admin role and the query.
        .building("listUsers", .get, "/v1/admin/users", Auth.ListUsers.self, access: .signedIn) {
            input throws(ServiceError) in
            .init(
                q: try input.string("q"), role: try input.string("role"), cursor: try input.string("cursor"),
                limit: try input.integer("limit"))
        },
        // The printer's jobs per day and status: printing checks the printer role and the range.
        .building(
            "countPrintJobs", .get, "/v1/admin/print-jobs/counts", Printing.CountPrintJobs.self, access: .signedIn
        ) { input throws(ServiceError) in .init(days: try input.integer("days")) },
        .building("listCurrencies", .get, "/v1/currencies", Orders.ListCurrencies.self, access: .anyone) { _ in
            Empty()
        },
        .forwardingBody("locate", .post, "/v1/campus/locate", Routing.Locate.self, access: .anyone),
        .forwardingBody("planRoute", .post, "/v1/campus/routes", Routing.PlanRoute.self, access: .anyone),
        .forwardingBody("nextClass", .post, "/v1/campus/routes/next-class", Routing.NextClass.self, access: .signedIn),
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
        // PolitiMap's local format for bodies without an API: civic checks the civic_editor role.
        .forwardingBody("importCivicLocal", .post, "/v1/admin/civic/imports", Civic.ImportLocal.self, access: .signedIn),
        .building("listMyEvents", .get, "/v1/me/events", Routing.MyEvents.self, access: .signedIn) {
            input throws(ServiceError) in
            .init(limit: try input.integer("limit"))
        },
        .building("listModules", .get, "/v1/admin/campus/modules", Routing.ListModules.self, access: .signedIn) { _ in
            Empty()
        },
        .building(
            "deleteModule", .delete, "/v1/admin/campus/modules/{code}", Routing.DeleteModule.self, access: .signedIn,
            status: .noContent
        ) { input in .init(code: input.path("code")) },
        .forwardingBody("setMyModules", .put, "/v1/me/modules", Routing.SetMyModules.self, access: .signedIn),
        .building(
            "getClassReminders", .get, "/v1/me/class-reminders", Routing.GetClassReminders.self, access: .signedIn
        ) { _ in Empty() },
        .forwardingBody(
            "setClassReminders", .put, "/v1/me/class-reminders", Routing.SetClassReminders.self, access: .signedIn),
        .building("getMyTimetable", .get, "/v1/me/timetable", Routing.MyTimetable.self, access: .signedIn) {
            input throws(ServiceError) in
            .init(from: try input.string("from"), to: try input.string("to"))
        },
        .building(
            "revokeTimetableFeed", .delete, "/v1/me/timetable/feed", Routing.RevokeTimetableFeed.self,
            access: .signedIn, status: .noContent
        ) { _ in Empty() },
        // Share pages of PostcardBuddy cards: printing checks that the card is the caller's and sent.
        .building("shareOrder", .post, "/v1/orders/{id}/share", Printing.ShareCard.self, access: .signedIn) { input in
            .init(orderId: input.path("id"))
        },
        .building(
            "unshareOrder", .delete, "/v1/orders/{id}/share", Printing.UnshareCard.self, access: .signedIn,
            status: .noContent
        ) { input in .init(orderId: input.path("id")) },
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
        .building("listMyImages", .get, "/v1/images", Printing.ListImages.self, access: .signedIn) {
            input throws(ServiceError) in
            PageRequest(cursor: try input.string("cursor"), limit: try input.integer("limit"))
        }.tagged(.content),
        .building(
            "deleteImage", .delete, "/v1/images/{id}", Printing.DeleteImage.self, access: .signedIn, status: .noContent
        ) { input in .init(id: input.path("id")) },
        .forwardingBody(
            "saveTokenizedPaymentMethod", .post, "/v1/payment-methods/tokenized", Orders.SaveTokenizedPaymentMethod.self,
            access: .signedIn, status: .created),
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
    ] + greetings + civic + civicEditors + [civicLookup]
}
