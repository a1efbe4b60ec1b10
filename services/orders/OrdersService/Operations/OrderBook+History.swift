import Contract
import Foundation
import OrdersContract
import PostgresNIO

extension OrderBook {
    /// The caller's orders, newest first, a page at a time; `query` matches recipient names,
    /// addresses and e-mails, `from`/`to` the creation time.
    public func list(_ request: Orders.ListOrders.Request, actor: Actor) async throws -> Orders.ListOrders.Reply {
        let userId = try Self.userId(actor)
        let limit = request.limit ?? 20
        guard (1...100).contains(limit) else { throw ServiceError.invalidArgument("limit is 1 to 100", field: "limit") }
        let query = request.query.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.flatMap {
            $0.isEmpty ? nil : $0
        }
        let cursor = try KeysetCursor.parse(request.cursor)
        let (cursorMicros, cursorId) = (cursor?.micros, cursor?.id)
        let rows = try await client.fetch(
            """
            SELECT id, kind, state, currency, total_amount, created_at,
                   (extract(epoch FROM created_at) * 1000000)::bigint, details::text
            FROM orders.orders
            WHERE user_id = \(userId)
              AND (\(query)::text IS NULL OR strpos(search_text, \(query)::text) > 0)
              AND (\(request.from)::timestamptz IS NULL OR created_at >= \(request.from)::timestamptz)
              AND (\(request.to)::timestamptz IS NULL OR created_at < \(request.to)::timestamptz)
              AND (\(cursorMicros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(cursorMicros)::bigint * interval '1 microsecond',
                                         \(cursorId)::uuid))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var items: [Orders.OrderSummary] = []
        var next: String?
        var lastMicros: Int64 = 0
        let decoder = Wire.makeDecoder()
        for try await (id, kind, state, currency, amount, created, micros, details) in rows.decode(
            (UUID, String, String, String, Int64, Date, Int64, String).self)
        {
            if items.count == limit {
                let last = items[items.count - 1]
                next = KeysetCursor.text(micros: lastMicros, id: last.id)
                break
            }
            let content = try decoder.decode(Content.self, from: Data(details.utf8))
            items.append(
                Orders.OrderSummary(
                    id: id.uuidString.lowercased(), kind: kind, state: state,
                    total: Money(amount: amount, currency: currency), createdAt: created,
                    recipients: content.recipientNames))
            lastMicros = micros
        }
        return Orders.ListOrders.Reply(items: items, nextCursor: next)
    }

    /// One order in full with the time of each state; `not_found` unless it is the caller's
    /// (admins see every order).
    /// Whether any order of `actor`'s, in any state, names image `id` on its postcard or e-card.
    public func usesImage(_ id: String, actor: Actor) async throws -> Bool {
        let userId = try Self.userId(actor)
        guard let image = UUID(uuidString: id) else { return false }
        let text = image.uuidString.lowercased()
        let rows = try await client.fetch(
            """
            SELECT EXISTS (
                SELECT 1 FROM orders.orders
                WHERE user_id = \(userId)
                  AND (lower(details->'postcard'->>'imageId') = \(text) OR lower(details->'ecard'->>'imageId') = \(text)))
            """, logger: logger)
        for try await used in rows.decode(Bool.self) { return used }
        return false
    }

    public func detail(_ id: String, actor: Actor) async throws -> Orders.OrderDetail {
        let userId = try Self.userId(actor)
        guard let orderId = UUID(uuidString: id) else { throw ServiceError.notFound("no such order") }
        let rows = try await client.fetch(
            """
            SELECT user_id, kind, state, breakdown::text, details::text, payment_method_id, created_at,
                   ecard_image_url
            FROM orders.orders WHERE id = \(orderId)
            """, logger: logger)
        for try await (owner, kind, state, breakdownText, detailsText, methodId, created, imageUrl) in rows.decode(
            (UUID, String, String, String, String, UUID?, Date, String?).self)
        {
            guard owner == userId || actor.has(.admin) else { break }
            let decoder = Wire.makeDecoder()
            let breakdown = try decoder.decode(PriceBreakdown.self, from: Data(breakdownText.utf8))
            let content = try decoder.decode(Content.self, from: Data(detailsText.utf8))
            // A free order names no card.
            let paymentMethod = if let methodId { try await cards.any(methodId) } else { Orders.PaymentMethod?.none }
            return Orders.OrderDetail(
                id: orderId.uuidString.lowercased(), kind: kind, state: state, total: breakdown.total,
                lines: breakdown.lines, rateDate: breakdown.rateDate, rate: breakdown.rate, postcard: content.postcard,
                ecard: content.ecard, gift: content.gift, paymentMethod: paymentMethod,
                createdAt: created, history: try await history(orderId),
                deviceEcard: EcardShareText.deviceEcard(content.ecard, imageUrl: imageUrl))
        }
        throw ServiceError.notFound("no such order")
    }

    /// Every state the order reached, in order.
    func history(_ orderId: UUID) async throws -> [Orders.StateChange] {
        let rows = try await client.fetch(
            "SELECT state, at, reason FROM orders.order_states WHERE order_id = \(orderId) ORDER BY seq",
            logger: logger)
        var changes: [Orders.StateChange] = []
        for try await (state, at, reason) in rows.decode((String, Date, String?).self) {
            changes.append(Orders.StateChange(state: state, at: at, reason: reason))
        }
        return changes
    }
}
