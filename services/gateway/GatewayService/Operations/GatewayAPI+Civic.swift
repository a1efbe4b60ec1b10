import CivicContract
import Contract
import Foundation
import OpenAPIRuntime
import ServiceKit

/// PolitiMap, answered by `civic`: editors' highlights, the caller's bookmarks and the alert
/// subscriptions, whose shapes the gateway maps. The rest of PolitiMap is served on the one path
/// (``DocumentRoute``).
extension GatewayAPI {
    func setBillHighlight(_ input: Operations.SetBillHighlight.Input) async throws
        -> Operations.SetBillHighlight.Output
    {
        try requireCaller()
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        _ = try await callAsCaller(
            Civic.SetHighlight.self, .init(billId: input.path.billId, highlighted: body.highlighted))
        return .noContent(.init())
    }

    func listBillBookmarks(_ input: Operations.ListBillBookmarks.Input) async throws
        -> Operations.ListBillBookmarks.Output
    {
        let reply = try await callAsCaller(
            Civic.ListBookmarks.self, .init(cursor: input.query.cursor, limit: input.query.limit))
        return .ok(
            .init(
                body: .json(.init(items: reply.items.map(Components.Schemas.BillBookmark.init), nextCursor: reply.nextCursor))))
    }

    func getBillBookmark(_ input: Operations.GetBillBookmark.Input) async throws -> Operations.GetBillBookmark.Output {
        .ok(.init(body: .json(.init(try await callAsCaller(Civic.GetBookmark.self, .init(billId: input.path.billId))))))
    }

    func putBillBookmark(_ input: Operations.PutBillBookmark.Input) async throws -> Operations.PutBillBookmark.Output {
        let reply = try await callAsCaller(Civic.PutBookmark.self, .init(billId: input.path.billId))
        let bookmark = Components.Schemas.BillBookmark(reply.bookmark)
        return reply.created ? .created(.init(body: .json(bookmark))) : .ok(.init(body: .json(bookmark)))
    }

    func deleteBillBookmark(_ input: Operations.DeleteBillBookmark.Input) async throws
        -> Operations.DeleteBillBookmark.Output
    {
        _ = try await callAsCaller(Civic.DeleteBookmark.self, .init(billId: input.path.billId))
        return .noContent(.init())
    }
}

/// RFC 3339 between the generated `Date`s and the contract's strings.
enum FeedTime {
    static func text(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }
    static func date(_ text: String) -> Date { (try? Date(text, strategy: .iso8601)) ?? Date(timeIntervalSince1970: 0) }
}

extension Components.Schemas.CivicJurisdiction {
    init(_ jurisdiction: Civic.Jurisdiction) {
        self.init(id: jurisdiction.id, name: jurisdiction.name, level: .init(rawValue: jurisdiction.level.rawValue) ?? .federal)
    }
}

extension Components.Schemas.BillSummary {
    init(_ bill: Civic.BillSummary) {
        self.init(
            id: bill.id, jurisdiction: .init(bill.jurisdiction), session: bill.session, identifier: bill.identifier,
            title: bill.title, summary: bill.summary, subjects: bill.subjects,
            status: .init(rawValue: bill.status.rawValue) ?? .introduced, introducedOn: bill.introducedOn,
            latestActionOn: bill.latestActionOn, latestAction: bill.latestAction,
            updatedAt: FeedTime.date(bill.updatedAt))
    }
}

extension Components.Schemas.BillBookmark {
    init(_ bookmark: Civic.Bookmark) {
        self.init(billId: bookmark.billId, createdAt: FeedTime.date(bookmark.createdAt), bill: .init(bookmark.bill))
    }
}

/// PolitiMap's new-bill push: subscriptions per device push token, no account; the token only
/// in a body, the secret only in a header.
extension GatewayAPI {
    func createCivicSubscription(_ input: Operations.CreateCivicSubscription.Input) async throws
        -> Operations.CreateCivicSubscription.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callOpenly(
            Civic.CreateSubscription.self,
            .init(
                deviceToken: body.deviceToken, platform: body.platform.rawValue, app: body.app,
                apnsEnvironment: body.apnsEnvironment?.rawValue, jurisdictions: body.jurisdictions,
                subjects: body.subjects ?? []))
        let created = Components.Schemas.CivicSubscriptionCreated(
            id: reply.id, secret: reply.secret, subscription: .init(reply.subscription))
        return reply.created ? .created(.init(body: .json(created))) : .ok(.init(body: .json(created)))
    }

    func updateCivicSubscription(_ input: Operations.UpdateCivicSubscription.Input) async throws
        -> Operations.UpdateCivicSubscription.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callOpenly(
            Civic.UpdateSubscription.self,
            .init(
                id: input.path.id, secret: input.headers.xSubscriptionSecret, jurisdictions: body.jurisdictions,
                subjects: body.subjects ?? [], deviceToken: body.deviceToken,
                apnsEnvironment: body.apnsEnvironment?.rawValue))
        return .ok(.init(body: .json(.init(reply))))
    }

    func deleteCivicSubscription(_ input: Operations.DeleteCivicSubscription.Input) async throws
        -> Operations.DeleteCivicSubscription.Output
    {
        _ = try await callOpenly(
            Civic.DeleteSubscription.self, .init(id: input.path.id, secret: input.headers.xSubscriptionSecret))
        return .noContent(.init())
    }
}

extension Components.Schemas.CivicSubscription {
    init(_ subscription: Civic.Subscription) {
        self.init(
            id: subscription.id, platform: .init(rawValue: subscription.platform) ?? .web, app: subscription.app,
            jurisdictions: subscription.jurisdictions, subjects: subscription.subjects,
            createdAt: FeedTime.date(subscription.createdAt), updatedAt: FeedTime.date(subscription.updatedAt))
    }
}
