import Contract
import Foundation
import OrdersContract

/// Reading orders: the caller's history a page at a time, one order in full with the time of
/// each state, and whether an image is on any of the caller's cards.
public struct OrderHistoryHandler: Sendable {
    let orders: OrderStore
    let cards: PaymentMethodStore

    /// Creates the handler over its stores.
    public init(orders: OrderStore, cards: PaymentMethodStore) {
        self.orders = orders
        self.cards = cards
    }

    /// The caller's orders, newest first, a page at a time; `query` matches recipient names,
    /// addresses and e-mails, `from`/`to` the creation time.
    public func list(_ request: Orders.ListOrders.Request, actor: Actor) async throws -> Orders.ListOrders.Reply {
        let userId = try actor.userUUID()
        let limit = request.limit ?? 20
        guard (1...100).contains(limit) else { throw ServiceError.invalidArgument("limit is 1 to 100", field: "limit") }
        let query = request.query.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.flatMap {
            $0.isEmpty ? nil : $0
        }
        let cursor = try KeysetCursor.parse(request.cursor)
        let rows = try await orders.list(
            userId: userId, query: query, from: request.from, to: request.to, cursorMicros: cursor?.micros,
            cursorId: cursor?.id, limit: limit + 1)
        var items: [Orders.OrderSummary] = []
        var next: String?
        var lastMicros: Int64 = 0
        for (summary, micros) in rows {
            if items.count == limit {
                let last = items[items.count - 1]
                next = KeysetCursor.text(micros: lastMicros, id: last.id)
                break
            }
            items.append(summary)
            lastMicros = micros
        }
        return Orders.ListOrders.Reply(items: items, nextCursor: next)
    }

    /// Whether any order of `actor`'s, in any state, names image `id` on its postcard or e-card.
    public func usesImage(_ id: String, actor: Actor) async throws -> Orders.ImageInOrders.Reply {
        let userId = try actor.userUUID()
        guard let image = UUID(uuidString: id) else { return Orders.ImageInOrders.Reply(inUse: false) }
        return Orders.ImageInOrders.Reply(inUse: try await orders.usesImage(image, userId: userId))
    }

    /// One order in full with the time of each state; `not_found` unless it is the caller's
    /// (admins see every order).
    public func detail(_ id: String, actor: Actor) async throws -> Orders.OrderDetail {
        let userId = try actor.userUUID()
        guard let orderId = UUID(uuidString: id) else { throw ServiceError.notFound("no such order") }
        guard let order = try await orders.find(orderId), order.owner == userId || actor.has(.admin) else {
            throw ServiceError.notFound("no such order")
        }
        let (breakdown, content) = (order.breakdown, order.content)
        // A free order names no card.
        let paymentMethod: Orders.PaymentMethod? =
            if let methodId = order.paymentMethodId { try await cards.any(methodId) } else { nil }
        return Orders.OrderDetail(
            id: orderId.uuidString.lowercased(), kind: order.kind, state: order.state, total: breakdown.total,
            lines: breakdown.lines, rateDate: breakdown.rateDate, rate: breakdown.rate, postcard: content.postcard,
            ecard: content.ecard, gift: content.gift, paymentMethod: paymentMethod,
            createdAt: order.createdAt, history: try await orders.history(orderId),
            deviceEcard: EcardShareText.deviceEcard(content.ecard, imageUrl: order.ecardImageURL))
    }
}
