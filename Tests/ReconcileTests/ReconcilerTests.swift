import Foundation
import PostgresNIO
import Store
import Testing

/// The reconciliation proves itself on a real PostgreSQL when the fault run is not calling: a
/// consistent seeded world passes, and each seeded fault is reported by its check, and only by
/// the checks it breaks.
@Suite(.serialized, .enabled(if: !FaultRun.isSet, "the fault run reconciles its own database instead"))
struct ReconcilerTests {
    /// A fault: what it adds to the world (statements after the consistent ones, changes to what
    /// was acknowledged) and the checks that must report it.
    struct Fault: Sendable, CustomTestStringConvertible {
        let name: String
        let reported: Set<String>
        let statements: @Sendable (SeededWorld) -> [String]
        let input: @Sendable (SeededWorld, inout Acknowledged) -> Void

        init(
            _ name: String, reported: Set<String>, statements: @escaping @Sendable (SeededWorld) -> [String],
            input: @escaping @Sendable (SeededWorld, inout Acknowledged) -> Void
        ) {
            self.name = name
            self.reported = reported
            self.statements = statements
            self.input = input
        }

        /// A fault written into the database.
        init(_ name: String, reported: Set<String>, statements: @escaping @Sendable (SeededWorld) -> [String]) {
            self.init(name, reported: reported, statements: statements, input: { _, _ in })
        }

        /// A fault in what was acknowledged.
        init(_ name: String, reported: Set<String>, told input: @escaping @Sendable (SeededWorld, inout Acknowledged) -> Void) {
            self.init(name, reported: reported, statements: { _ in [] }, input: input)
        }

        var testDescription: String { name }
    }

    static let hourAgo = "now() - interval '1 hour'"

    static let faults: [Fault] = [
        Fault("an acknowledged order missing", reported: ["acknowledged but not in the database (lost)"]) { world, input in
            input.orders.append(UUID().uuidString.lowercased())
        },
        Fault("an order acknowledged twice", reported: ["acknowledged twice (same id)"]) { world, input in
            input.orders.append(world.postcard)
        },
        Fault("an order charged twice", reported: ["orders authorized more than once (double charge)"]) {
            [$0.ledger($0.postcard, "authorize", "hold", 1000, "pi_again")]
        },
        Fault("an order captured twice", reported: ["orders captured more than once", "orders whose captured sum differs from Stripe's"]) {
            [$0.ledger($0.postcard, "capture", "hold", -1000, "ch_again"), $0.ledger($0.postcard, "capture", "charge", 1000, "ch_again")]
        },
        Fault(
            "a refunded order whose ledger does not add up",
            reported: ["failed, canceled or refunded orders whose charge account is not zero", "orders whose captured sum differs from Stripe's"]
        ) { [$0.ledger($0.refunded, "capture", "charge", 500, "ch_\($0.refunded)")] },
        Fault("a free order with money moved", reported: ["free orders with money moved or an authorization (charged for nothing)"]) {
            [$0.ledger($0.ecard, "authorize", "hold", 100, "pi_free")]
        },
        Fault(
            "an acknowledged order never authorized", reported: ["acknowledged without an authorization"],
            statements: { [$0.order($0.friend, kind: "ecard", state: "paid", total: 99)] },
            input: { world, input in input.orders.append(world.friend) }),
        Fault("an order stuck in pending_payment", reported: ["orders pending_payment for more than 60 s (stuck)"]) {
            [$0.order(UUID().uuidString.lowercased(), kind: "postcard", state: "pending_payment", total: 1000, at: hourAgo)]
        },
        Fault("an event nobody handled", reported: ["events not handled by notify (stuck)"]) {
            [$0.event("orders.paid", #"{"orderId": "\#($0.postcard)", "kind": "postcard"}"#, at: hourAgo)]
        },
        Fault("a gift not charged the catalogue's price", reported: ["gift orders not charged the catalogue's price"]) {
            ["UPDATE social.catalog_items SET price_amount = 3000 WHERE id = '\($0.item)'"]
        },
        Fault("a gift paid twice", reported: ["gift orders paid more than once (two orders.paid events)"]) {
            [$0.event("orders.paid", #"{"orderId": "\#($0.gift)", "kind": "gift"}"#)]
        },
        Fault(
            "a gift notice missing",
            reported: ["gift notices (orders.gift_received) missing or repeated, against paid gifts for a friend"]
        ) { _ in ["DELETE FROM events.log WHERE topic = 'orders.gift_received'"] },
        Fault("a paid postcard never rendered", reported: ["paid postcard orders without a rendered print job (not rendered)"]) {
            [
                "DELETE FROM printing.print_jobs WHERE order_id = '\($0.postcard)'",
                "UPDATE orders.orders SET updated_at = \(hourAgo) WHERE id = '\($0.postcard)'",
            ]
        },
        Fault("a failed print job whose order is not refunded", reported: ["failed print jobs whose order is not refunded"]) {
            [$0.printJob($0.gift, status: "failed", at: hourAgo)]
        },
        Fault("a print job stuck in the queue", reported: ["print jobs queued for more than 60 s (stuck)"]) {
            [$0.printJob(UUID().uuidString, status: "queued", at: hourAgo)]
        },
        Fault("a delivery dead-lettered", reported: ["delivery jobs dead-lettered"]) { [$0.job("notify", state: "dead")] },
        Fault("a delivery stuck", reported: ["delivery jobs not done after 60 s (stuck)"]) { _ in
            ["UPDATE notify.jobs SET state = 'queued', run_at = \(hourAgo)"]
        },
        Fault("an e-mail lost", reported: ["e-mails logged as sent but not in the sink (lost)"]) { _, input in
            input.mails = [:]
        },
        Fault("an e-mail received twice", reported: ["e-mails received more than once (same Message-ID)"]) { world, input in
            input.mails = [world.mail: 2]
        },
        Fault(
            "an e-mail received twice, logged as resent after an interrupted hand-over, is no fault", reported: [],
            statements: {
                [
                    """
                    UPDATE notify.deliveries SET detail = 'resent after an interrupted hand-over (same Message-ID)'
                     WHERE notification_id = '\($0.mail)' AND channel = 'email'
                    """
                ]
            },
            input: { world, input in input.mails = [world.mail: 2] }),
        Fault("an e-mail received three times, one resend logged", reported: ["e-mails received more than once (same Message-ID)"],
            statements: {
                [
                    """
                    UPDATE notify.deliveries SET detail = 'resent after an interrupted hand-over (same Message-ID)'
                     WHERE notification_id = '\($0.mail)' AND channel = 'email'
                    """
                ]
            },
            input: { world, input in input.mails = [world.mail: 3] }),
        Fault("an e-mail nobody sent", reported: ["e-mails in the sink that no delivery logged as sent"]) { world, input in
            input.mails?[UUID().uuidString.lowercased()] = 1
        },
        Fault("an acknowledged drink missing", reported: ["drinks acknowledged but not in the database (lost)"]) { world, input in
            input.drinks?.append(UUID().uuidString.lowercased())
        },
        Fault("a deleted drink", reported: ["drinks acknowledged but not in the database (lost)"]) {
            ["UPDATE hydration.drinks SET deleted = true WHERE uuid = '\($0.drinks[0])'"]
        },
        Fault(
            "two drinks with one change number",
            reported: ["drinks sharing a change number with another of their user (sync would skip one)"]
        ) { ["UPDATE hydration.drinks SET seq = 1 WHERE uuid = '\($0.drinks[1])'"] },
        Fault("a bill without its event", reported: ["civic bills without exactly one civic.bill_introduced event"]) { _ in
            ["DELETE FROM events.log WHERE topic = 'civic.bill_introduced'"]
        },
        Fault("a bill's event repeated", reported: ["civic bills without exactly one civic.bill_introduced event"]) {
            [$0.event("civic.bill_introduced", #"{"billId": "\#($0.bill)"}"#)]
        },
        Fault("an event for no bill", reported: ["civic.bill_introduced events for a bill that is not stored"]) { world in
            [world.event("civic.bill_introduced", #"{"billId": "\#(UUID().uuidString.lowercased())"}"#)]
        },
        Fault("an import dead-lettered", reported: ["civic import jobs dead-lettered"]) { [$0.job("civic", state: "dead")] },
        Fault("a push owed but not in the outbox", reported: ["civic (device, bill) pairs owed but not in the outbox"]) { _ in
            ["DELETE FROM civic.push_outbox"]
        },
        Fault("a push decided but not handed over", reported: ["civic new-bill pushes decided but not handed to notify"]) { _ in
            ["UPDATE civic.pushes SET sent_at = NULL"]
        },
        Fault("a push marked sent that notify lacks", reported: ["civic new-bill pushes marked sent that notify does not hold"]) {
            ["DELETE FROM notify.notifications WHERE id = '\($0.push)'"]
        },
        Fault("a device notification civic never decided", reported: ["notify device notifications civic never decided"]) { world in
            [world.notification(UUID().uuidString.lowercased(), device: true)]
        },
        Fault(
            "a bill the feed serves that civic lacks",
            reported: ["civic bills the feed serves but civic does not hold (or holds extra)"]
        ) { _, input in input.civicFeedBills = 2 },
        Fault("money held at Stripe for no order", reported: ["Stripe payments holding or keeping money for no order of ours"]) { _, input in
            input.stripeCharges?.append(StripeCharge(intent: "pi_unknown", status: "requires_capture", authorized: 700, captured: 0))
        },
        Fault("a refund Stripe did not make", reported: ["orders whose refunded sum differs from Stripe's"]) { world, input in
            input.stripeCharges?[1].refunded = 0
        },
        Fault("a hold left at Stripe for released money", reported: ["holds left at Stripe for orders whose money we released or never took"]) {
            ["UPDATE orders.orders SET released = true WHERE id = '\($0.gift)'"]
        },
        Fault("an authorization Stripe does not know", reported: ["authorizations in our ledger that Stripe does not know"]) { _, input in
            input.stripeCharges?.removeLast()
        },
    ]

    static func reconcile(_ fault: Fault?) async throws -> [Tally] {
        let world = SeededWorld()
        var input = world.acknowledged
        fault?.input(world, &input)
        var tallies: [Tally] = []
        try await SeededWorld.withDatabase { client in
            for sql in world.statements + (fault?.statements(world) ?? []) {
                try await client.fetch(PostgresQuery(unsafeSQL: sql), logger: SeededWorld.logger)
            }
            tallies = try await Reconciler.run(input, client: client, logger: SeededWorld.logger)
        }
        return tallies
    }

    @Test func aConsistentWorldPassesWithEveryCount() async throws {
        let tallies = try await Self.reconcile(nil)
        #expect(tallies.filter(\.failed).map(\.name) == [])
        let counts = Dictionary(tallies.map { ($0.name, $0.count) }, uniquingKeysWith: +)
        #expect(counts["orders acknowledged to the client"] == 4)
        #expect(counts["acknowledged free orders (no payment)"] == 1)
        #expect(counts["orders now refunded"] == 1)
        #expect(counts["acknowledged gift orders"] == 1)
        #expect(counts["paid postcard orders with a rendered print job"] == 1)
        #expect(counts["e-mails in the SMTP sink"] == 1)
        #expect(counts["drinks acknowledged to the client"] == 2)
        #expect(counts["civic bills imported"] == 1)
        #expect(counts["civic new-bill pushes handed to notify"] == 1)
        #expect(counts["Stripe payments that held money"] == 3)
        #expect(counts["events not handled by notify (stuck)"] == 0)
        #expect(tallies.count == 55)
    }

    @Test(arguments: faults) func aSeededFaultIsReported(_ fault: Fault) async throws {
        let tallies = try await Self.reconcile(fault)
        #expect(Set(tallies.filter(\.failed).map(\.name)) == fault.reported)
    }

    @Test func theReportMarksFailures() {
        #expect(Tally(name: "lost", count: 2, bad: true).description.hasPrefix("!! lost "))
        #expect(Tally(name: "counted", count: 2, bad: false).description.hasPrefix("   counted "))
        #expect(Tally(name: "lost", count: 0, bad: true).description.hasSuffix("       0"))
    }
}
