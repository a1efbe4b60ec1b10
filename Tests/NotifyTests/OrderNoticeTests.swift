import Contract
import Foundation
import NotifyContract
import NotifyService
import OrdersContract
import PostgresNIO
import Store
import Testing

/// Orders' notices of refunds and disputes (`orders.refund_notice`, `orders.dispute_notice`)
/// turned into the buyer's notifications by the triggers, as the consumer runs them: in a
/// transaction, once per event.
@Suite("notify: refund and dispute notices from orders (PostgreSQL)")
struct OrderNoticeTests {
    static func event(_ topic: String, _ payload: some Encodable) throws -> StoredEvent {
        StoredEvent(
            seq: 1, xid: 1, id: UUID(), topic: topic, producer: "orders",
            payload: try Wire.makeEncoder().encode(payload),
            requestId: nil, createdAt: Date())
    }

    @Test("a refund and a dispute become inbox items in the buyer's language; a replayed event sends nothing new")
    func refundAndDispute() async throws {
        #expect(Triggers.serviceTopics.contains(Orders.OrderRefunded.topic))
        #expect(Triggers.serviceTopics.contains(Orders.OrderDisputed.topic))
        try await NotifyWorld.with { world in
            let triggers = Triggers(store: world.store, logger: NotifyWorld.logger)
            let ann = UUID()
            let bo = UUID()
            _ = try await world.store.setPreferences(
                .init(timeZone: "Europe/Stockholm", quietHours: nil, locale: "sv", channels: []), of: bo)
            let refund = try Self.event(
                Orders.OrderRefunded.topic,
                Orders.OrderRefunded(userId: ann.uuidString.lowercased(), orderId: "o-1", amount: "12.50 EUR"))
            let dispute = try Self.event(
                Orders.OrderDisputed.topic, Orders.OrderDisputed(userId: bo.uuidString.lowercased(), orderId: "o-2"))
            for event in [refund, dispute, refund] {
                try await Transactions(world.client, logger: NotifyWorld.logger).run { tx in
                    try await triggers.handle(event, in: tx)
                }
            }
            let annItems = try await world.store.inbox(of: ann, .init()).items
            #expect(annItems.count == 1, "the replayed refund event made nothing new")
            #expect(annItems.first?.kind == Notify.Kind.orderRefunded)
            #expect(annItems.first?.title == "Your money is on its way back")
            #expect(annItems.first?.body.contains("12.50 EUR of order o-1 is refunded") == true)
            let boItems = try await world.store.inbox(of: bo, .init()).items
            #expect(boItems.map(\.kind) == [Notify.Kind.orderDisputed])
            #expect(boItems.first?.title == "Din bank bestrider en betalning")
            #expect(boItems.first?.body.contains("o-2") == true)
        }
    }
}
