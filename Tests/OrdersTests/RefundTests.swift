import Contract
import Foundation
import OrdersContract
import Testing

@testable import OrdersService

/// Operators' refunds against PostgreSQL and the sandbox.
@Suite("orders: admin refunds (PostgreSQL)")
struct RefundTests {
    @Test("partial then the rest, once per key; more than is left or nothing captured is a 422; the ledger follows")
    func refunds() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let admin = db.user(roles: ["admin"])
            let card = try await db.card(for: ann)
            let ecard = try await db.handlers.placement.place(
                KeyedOrder(
                    idempotencyKey: UUID().uuidString, kind: "ecard",
                    ecard: .init(greeting: "Hej", recipients: [.init(name: "Bo", email: "bo@example.org")]),
                    currency: "EUR", paymentMethodId: card), actor: ann, requestId: "t")
            let total = ecard.total.amount
            let first = try await db.handlers.refunds.refund(
                .init(id: ecard.id, amount: 10, reason: "late"), idempotencyKey: "refund-1", actor: admin)
            #expect(first.amount.amount == 10 && first.refundedTotal.amount == 10 && first.state == "paid")
            let again = try await db.handlers.refunds.refund(
                .init(id: ecard.id, amount: 10, reason: "late"), idempotencyKey: "refund-1", actor: admin)
            #expect(again == first, "the same key and body: the same refund")
            #expect(try await db.ledger(ecard.id).sum == total - 10)
            #expect(
                await failure {
                    _ = try await db.handlers.refunds.refund(
                        .init(id: ecard.id, amount: 11), idempotencyKey: "refund-1", actor: admin)
                }?.code == .conflict)
            #expect(
                await failure {
                    _ = try await db.handlers.refunds.refund(
                        .init(id: ecard.id, amount: total), idempotencyKey: "refund-2", actor: admin)
                }?.code == .failedPrecondition, "more than is left")
            let rest = try await db.handlers.refunds.refund(.init(id: ecard.id), idempotencyKey: "refund-3", actor: admin)
            #expect(rest.amount.amount == total - 10 && rest.refundedTotal.amount == total)
            #expect(try await db.ledger(ecard.id).sum == 0)
            #expect(try await db.ledger(ecard.id).movements["refund"] == 2)
            #expect(try await db.events(ecard.id).filter { $0 == "orders.refunded" }.count == 2)
            _ = try await db.handlers.transitions.cancel(ecard.id, actor: ann, requestId: "t")
            #expect(try await db.ledger(ecard.id).sum == 0, "nothing more to give back")

            let postcard = try await db.handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t")
            #expect(
                await failure {
                    _ = try await db.handlers.refunds.refund(.init(id: postcard.id), idempotencyKey: "refund-4", actor: admin)
                }?.code == .failedPrecondition, "a hold is voided, not refunded")
            #expect(
                await failure {
                    _ = try await db.handlers.refunds.refund(.init(id: UUID().uuidString), idempotencyKey: "k", actor: admin)
                }?.code == .notFound)
            #expect(
                await failure {
                    _ = try await db.handlers.refunds.refund(.init(id: ecard.id, amount: 0), idempotencyKey: "k", actor: admin)
                }?.code == .invalidArgument)
        }
    }

    @Test("a refund whose provider call got no answer is finished by the retry with the same key, once")
    func refundRetried() async throws {
        try await OrdersFixture.with(provider: { FaultyProvider(sandbox: $0, fault: .after("refund")) }) { db in
            let ann = db.user()
            let admin = db.user(roles: ["admin"])
            let ecard = try await db.handlers.placement.place(
                KeyedOrder(
                    idempotencyKey: UUID().uuidString, kind: "ecard",
                    ecard: .init(greeting: "Hej", recipients: [.init(name: "Bo", email: "bo@example.org")]),
                    currency: "EUR", paymentMethodId: try await db.card(for: ann)), actor: ann, requestId: "t")
            let lost = await failure {
                _ = try await db.handlers.refunds.refund(.init(id: ecard.id, amount: 5), idempotencyKey: "r", actor: admin)
            }
            #expect(lost?.code == .unavailable)
            #expect(try await db.ledger(ecard.id).movements["refund"] == nil)
            let retried = try await db.handlers(provider: db.sandbox).refunds.refund(
                .init(id: ecard.id, amount: 5), idempotencyKey: "r", actor: admin)
            #expect(retried.refundedTotal.amount == 5)
            #expect(try await db.ledger(ecard.id).movements["refund"] == 1)
            #expect(try await db.sandboxOperations(UUID(uuidString: ecard.id)!).filter { $0 == "refund" }.count == 1)
        }
    }
}
