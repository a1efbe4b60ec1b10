import CivicContract
import Contract
import Foundation
import ServiceKit

/// The bill endpoints: lists with filters and search, detail, highlights per level, topics.
public struct BillHandler: Sendable {
    let bills: BillStore
    /// Detail replies kept encoded (by bill and version).
    let encoded: EncodedBills

    public init(bills: BillStore, encoded: EncodedBills = EncodedBills()) {
        self.bills = bills
        self.encoded = encoded
    }

    /// `list_bills` as its reply's JSON, written straight from the rows (``ReplyJSON``).
    public func listJSON(_ request: Civic.ListBills.Request, _ context: OperationContext) async throws -> [UInt8] {
        ReplyJSON.page(try await list(request, context))
    }

    /// `get_bill` as its reply's JSON: the kept bytes while the bill's version is unchanged,
    /// else the bill read, encoded and kept.
    public func getJSON(_ request: Civic.GetBill.Request, _ context: OperationContext) async throws -> [UInt8] {
        let id = try BillQuery.id(request.id, what: "bill")
        guard let version = try await bills.detailVersion(id) else { throw ServiceError.notFound("no bill \(request.id)") }
        if let json = encoded.json(id, version: version) { return json }
        guard let bill = try await bills.bill(id) else { throw ServiceError.notFound("no bill \(request.id)") }
        let json = Array(try Wire.makeEncoder().encode(bill))
        encoded.keep(id, version: version, json: json)
        return json
    }

    /// `highlighted_bills` as its reply's JSON (``ReplyJSON``).
    public func highlightedJSON(_ request: Civic.HighlightedBills.Request, _ context: OperationContext) async throws
        -> [UInt8]
    {
        ReplyJSON.highlights(try await highlighted(request, context))
    }

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
