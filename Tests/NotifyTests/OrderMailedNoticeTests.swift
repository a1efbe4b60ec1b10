import Contract
import Foundation
import NotifyContract
import NotifyService
import PostgresNIO
import PrintingContract
import Store
import Testing

/// "Your postcard is on its way": printing's `printing.job_mailed` (the print job holding every
/// card of an order went to the post) turned into the buyer's notice, once per order.
@Suite("notify: the order-mailed notice")
struct OrderMailedNoticeTests {
    static func mailed(order: String, user: UUID?, job: String = UUID().uuidString) throws -> StoredEvent {
        // Printing's payload (`Printing.JobEvent`) as it appears in the log.
        var payload = ["orderId": order, "jobId": job]
        payload["userId"] = user?.uuidString.lowercased()
        return StoredEvent(
            seq: 1, xid: 1, id: UUID(), topic: Printing.Topic.jobMailed, producer: "printing",
            payload: try Wire.makeEncoder().encode(payload), requestId: nil, createdAt: Date())
    }

    @Test("one id per order, whatever event brings it: the same order (any case) the same id, another order another")
    func oncePerOrder() throws {
        let order = UUID().uuidString
        #expect(OrderMailedNotice.id(orderId: order) == OrderMailedNotice.id(orderId: order.lowercased()))
        #expect(OrderMailedNotice.id(orderId: order) != OrderMailedNotice.id(orderId: UUID().uuidString))
        let user = UUID()
        let first = try OrderMailedNotice.submission(.init(orderId: order, userId: user.uuidString))
        let again = try OrderMailedNotice.submission(.init(orderId: order, userId: user.uuidString.lowercased()))
        #expect(first == again)
        #expect(first.kind == Notify.Kind.orderMailed && first.userId == user)
        #expect(first.variables == ["orderId": order.lowercased()])
        #expect(throws: ServiceError.self) { try OrderMailedNotice.submission(.init(orderId: order, userId: nil)) }
        #expect(throws: ServiceError.self) { try OrderMailedNotice.submission(.init(orderId: order, userId: "nobody")) }
        #expect(Triggers.serviceTopics.contains(Printing.Topic.jobMailed))
        #expect(Printing.Topic.jobMailed == "printing.job_mailed")
    }

    @Test("the text in English and Swedish, on every channel, not critical (e-mail can be switched off)")
    func templateText() throws {
        let kind = try NotificationCatalog.kind(Notify.Kind.orderMailed)
        #expect(!kind.critical && kind.channels == Notify.Channel.all && kind.variables == ["orderId"])
        let english = kind.template(for: "en").render(["orderId": "o-1"])
        #expect(english.title == "Your postcard is on its way")
        #expect(english.text == "Every card of order o-1 is printed and handed to the post.")
        #expect(english.html == "<p>Every card of order <b>o-1</b> is printed and handed to the post.</p>")
        let swedish = kind.template(for: "sv").render(["orderId": "o-1"])
        #expect(swedish.title == "Ditt vykort är på väg")
        #expect(swedish.text == "Alla kort i beställning o-1 är tryckta och lämnade till posten.")
        let paid = try NotificationCatalog.kind(Notify.Kind.orderSucceeded).template(for: "en").render(["orderId": "o-1"])
        #expect(paid.title != english.title, "payment and mailing are told apart")
    }

    @Test("one inbox item per order through replays and repeated events; e-mail and push by preference")
    func oneNoticePerOrder() async throws {
        try await NotifyWorld.with { world in
            let triggers = Triggers(store: world.store, logger: NotifyWorld.logger)
            let ann = UUID()
            let bo = UUID()
            _ = try await world.store.setPreferences(
                .init(
                    timeZone: "UTC", quietHours: nil, locale: "en",
                    channels: [.init(kind: Notify.Kind.orderMailed, channel: Notify.Channel.email, enabled: false)]),
                of: bo)
            let annOrder = UUID().uuidString.lowercased()
            let first = try Self.mailed(order: annOrder, user: ann)
            let repeated = try Self.mailed(order: annOrder, user: ann)
            let boOrder = UUID().uuidString.lowercased()
            for event in [first, first, repeated, try Self.mailed(order: boOrder, user: bo), try Self.mailed(order: "x", user: nil)] {
                try await Transactions(world.client, logger: NotifyWorld.logger).run { tx in
                    try await triggers.handle(event, in: tx)
                }
            }
            let annItems = try await world.store.inbox(of: ann, .init()).items
            #expect(annItems.count == 1, "one notice for the order, however often it was mailed")
            #expect(annItems.first?.kind == Notify.Kind.orderMailed)
            #expect(annItems.first?.title == "Your postcard is on its way")
            #expect(annItems.first?.body.contains(annOrder) == true)
            let annId = OrderMailedNotice.id(orderId: annOrder)
            let annJobs = try await world.count(
                "SELECT count(*)::int8 FROM \(unescaped: world.schema).jobs WHERE payload->>'notificationId' ILIKE \(annId.uuidString)")
            #expect(annJobs == 2, "e-mail and push")
            let boItems = try await world.store.inbox(of: bo, .init()).items
            #expect(boItems.map(\.kind) == [Notify.Kind.orderMailed])
            let boId = OrderMailedNotice.id(orderId: boOrder)
            #expect(try await world.outcomes(boId, Notify.Channel.email) == ["skipped"])
            let boJobs = try await world.count(
                "SELECT count(*)::int8 FROM \(unescaped: world.schema).jobs WHERE payload->>'notificationId' ILIKE \(boId.uuidString)")
            #expect(boJobs == 1, "push only: Bo switched e-mail off for this kind")
        }
    }
}
