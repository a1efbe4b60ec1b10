import CivicContract
import Contract
import Foundation
import ServiceKit

/// The bill endpoints: lists with filters and search, detail, highlights per level, topics.
public struct BillCatalog: Sendable {
    let bills: BillStore

    public init(bills: BillStore) { self.bills = bills }

    /// `list_bills`.
    public func list(_ request: Civic.ListBills.Request, _ context: OperationContext) async throws
        -> Civic.ListBills.Reply
    {
        let limit = try Civic.ListBills.pageSize.limit(request.page.limit)
        let cursor = try KeysetCursor.parse(request.page.cursor)
        var topicSubjects: [String]?
        if let topic = try BillQuery.text(request.topic, field: "topic", max: 100) {
            guard let found = try await bills.topics().first(where: { $0.id == topic }) else {
                throw ServiceError.invalidArgument("no topic \(topic) (see /v1/civic/topics)", field: "topic")
            }
            topicSubjects = found.subjects
        }
        let filter = try BillQuery.filter(request, topicSubjects: topicSubjects)
        let fetched = try await bills.list(filter, after: cursor, limit: limit)
        let sortRecent = filter.sort == .recent
        let page = Page(fetched: fetched, limit: limit) { item in
            KeysetCursor.text(at: sortRecent ? item.activityAt : item.introducedAt, id: item.summary.id)
        }
        return .init(items: page.items.map(\.summary), nextCursor: page.nextCursor)
    }

    /// `get_bill`.
    public func get(_ request: Civic.GetBill.Request, _ context: OperationContext) async throws -> Civic.Bill {
        guard let bill = try await bills.bill(try BillQuery.id(request.id, what: "bill")) else {
            throw ServiceError.notFound("no bill \(request.id)")
        }
        return bill
    }

    /// `highlighted_bills`.
    public func highlighted(_ request: Civic.HighlightedBills.Request, _ context: OperationContext) async throws
        -> Civic.HighlightedBills.Reply
    {
        let levels = try request.level.map { (text) throws(ServiceError) -> [Civic.Level] in
            guard let level = Civic.Level(rawValue: text) else {
                throw ServiceError.invalidArgument("level is local, county, state or federal", field: "level")
            }
            return [level]
        } ?? Civic.Level.allCases
        var reply: [Civic.HighlightedBills.LevelHighlights] = []
        for level in levels {
            reply.append(
                .init(level: level, bills: try await bills.highlighted(level: level, perLevel: Civic.HighlightedBills.perLevel)))
        }
        return .init(levels: reply)
    }

    /// `set_highlight`: editors only.
    public func setHighlight(_ request: Civic.SetHighlight.Request, _ context: OperationContext) async throws -> Empty {
        _ = try context.requireRole(.civicEditor)
        guard try await bills.setHighlight(try BillQuery.id(request.billId, what: "bill"), request.highlighted) else {
            throw ServiceError.notFound("no bill \(request.billId)")
        }
        return Empty()
    }

    /// `list_topics`.
    public func topics(_ request: Empty, _ context: OperationContext) async throws -> Civic.ListTopics.Reply {
        .init(items: try await bills.topics())
    }

    /// `list_jurisdictions`.
    public func jurisdictions(_ request: Empty, _ context: OperationContext) async throws
        -> Civic.ListJurisdictions.Reply
    {
        .init(items: try await bills.jurisdictions())
    }
}
