import CivicService
import Foundation
import HydrationService
import Logging
import NotifyService
import OrdersService
import PostgresNIO
import PrintingService
import SocialService
import Store
import TestSupport

/// A small world every check of the reconciliation reads, consistent unless a fault is seeded:
/// a mailed postcard, a refunded one, a free e-card, a gift for a friend (held at Stripe), their
/// events and ledger, a print job, a delivered e-mail, two drinks, a bill with its event, push
/// and notification. Ids are fresh for each world.
struct SeededWorld {
    let user = UUID().uuidString.lowercased()
    let friend = UUID().uuidString.lowercased()
    let card = UUID().uuidString.lowercased()
    let postcard = UUID().uuidString.lowercased()
    let refunded = UUID().uuidString.lowercased()
    let ecard = UUID().uuidString.lowercased()
    let gift = UUID().uuidString.lowercased()
    let item = UUID().uuidString.lowercased()
    let mail = UUID().uuidString.lowercased()
    let drinks = [UUID().uuidString.lowercased(), UUID().uuidString.lowercased()]
    let bill = UUID().uuidString.lowercased()
    let subscription = UUID().uuidString.lowercased()
    let push = UUID().uuidString.lowercased()

    static let logger: Logger = {
        var logger = Logger(label: "reconcile-test")
        logger.logLevel = .critical
        return logger
    }()

    /// The tables the checks read, emptied before each world.
    static let tables = [
        "orders.ledger", "orders.orders", "orders.payment_methods", "events.log", "events.consumers", "events.handled",
        "social.catalog_items", "printing.print_jobs", "notify.notifications", "notify.deliveries", "notify.jobs",
        "hydration.drinks", "civic.push_outbox", "civic.pushes", "civic.subscriptions", "civic.bills",
        "civic.import_runs", "civic.jobs",
    ]

    /// Runs `body` on a database of the test process's own with every schema the checks read
    /// migrated and emptied.
    static func withDatabase(_ body: (PostgresClient) async throws -> Void) async throws {
        try await PostgresFixture.withOwnDatabase("reconcile_tests", maximumConnections: 4, logger: logger) { client in
            try await EventLog(client: client, logger: logger).migrate()
            let schemas: [(String, [Migration])] = [
                ("orders", try OrdersService.migrations()), ("social", try SocialService.migrations()),
                ("printing", try PrintingService.migrations()), ("notify", try NotifyService.migrations()),
                ("hydration", try HydrationService.migrations()), ("civic", try CivicService.migrations()),
            ]
            for (schema, migrations) in schemas {
                try await Migrator(client: client, schema: schema, logger: logger).migrate(migrations)
            }
            try await client.fetch(PostgresQuery(unsafeSQL: "TRUNCATE \(tables.joined(separator: ", ")) CASCADE"), logger: logger)
            try await body(client)
        }
    }

    /// What the load generator and the stand-ins were told about this world.
    var acknowledged: Acknowledged {
        Acknowledged(
            orders: [postcard, refunded, ecard, gift], drinks: drinks, mails: [mail: 1],
            stripeCharges: [
                StripeCharge(intent: "pi_\(postcard)", backplaneKey: postcard, status: "succeeded", authorized: 1000, captured: 1000, refunded: 0),
                StripeCharge(intent: "pi_\(refunded)", backplaneKey: refunded, status: "succeeded", authorized: 1500, captured: 1500, refunded: 1500),
                StripeCharge(intent: "pi_\(gift)", backplaneKey: gift, status: "requires_capture", authorized: 2500, captured: 0, refunded: nil),
            ],
            civicFeedBills: 1, stuckSeconds: 60)
    }

    func order(_ id: String, kind: String, state: String, total: Int, card: Bool = true, details: String = "{}",
               at: String = "now()") -> String {
        """
        INSERT INTO orders.orders (id, user_id, kind, state, currency, total_amount, breakdown, details, search_text,
                                   payment_method_id, authorization_id, created_at, updated_at)
        VALUES ('\(id)', '\(user)', '\(kind)', '\(state)', 'EUR', \(total), '{}', '\(details)', '',
                \(card ? "'\(self.card)'" : "NULL"), \(total > 0 ? "'pi_\(id)'" : "NULL"), \(at), \(at))
        """
    }

    func ledger(_ order: String, _ movement: String, _ account: String, _ amount: Int, _ reference: String) -> String {
        """
        INSERT INTO orders.ledger (order_id, user_id, movement, account, amount, currency, provider, provider_ref, created_at)
        VALUES ('\(order)', '\(user)', '\(movement)', '\(account)', \(amount), 'EUR', 'stripe', '\(reference)', now())
        """
    }

    func event(_ topic: String, _ payload: String, at: String = "now()") -> String {
        """
        INSERT INTO events.log (id, topic, producer, payload, created_at)
        VALUES (gen_random_uuid(), '\(topic)', 'test', '\(payload)', \(at))
        """
    }

    func printJob(_ order: String, status: String, at: String = "now()") -> String {
        """
        INSERT INTO printing.print_jobs (id, order_id, user_id, status, cards, postcard, created_at, updated_at)
        VALUES (gen_random_uuid(), '\(order)', '\(user)', '\(status)', 1, '{}', \(at), \(at))
        """
    }

    func job(_ schema: String, state: String) -> String {
        """
        INSERT INTO \(schema).jobs (id, kind, payload, state, max_attempts, run_at, created_at, updated_at)
        VALUES (gen_random_uuid(), 'test', '{}', '\(state)', 3, now(), now(), now())
        """
    }

    func notification(_ id: String, device: Bool) -> String {
        """
        INSERT INTO notify.notifications (id, user_id, email, kind, locale, critical, variables, title, body,
                                          request_hash, created_at, deliver_after, in_inbox, device)
        VALUES ('\(id)', '\(user)', 'a@example.org', 'test', 'en', false, '{}', 't', 'b', 'h', now(), now(), false,
                \(device ? "'{}'" : "NULL"))
        """
    }

    /// The consistent world's statements, in order.
    var statements: [String] {
        let giftDetails = #"{"gift": {"item": {"id": "\#(item)", "unitPrice": {"amount": 2500}}, "friendUserId": "\#(friend)"}}"#
        return [
            """
            INSERT INTO orders.payment_methods (id, user_id, provider, token, brand, last4, exp_month, exp_year, created_at)
            VALUES ('\(card)', '\(user)', 'stripe', 'tok', 'visa', '4242', 12, 2030, now())
            """,
            order(postcard, kind: "postcard", state: "mailed", total: 1000),
            ledger(postcard, "authorize", "hold", 1000, "pi_\(postcard)"),
            ledger(postcard, "capture", "hold", -1000, "ch_\(postcard)"),
            ledger(postcard, "capture", "charge", 1000, "ch_\(postcard)"),
            printJob(postcard, status: "mailed"),
            order(refunded, kind: "postcard", state: "refunded", total: 1500),
            ledger(refunded, "authorize", "hold", 1500, "pi_\(refunded)"),
            ledger(refunded, "capture", "hold", -1500, "ch_\(refunded)"),
            ledger(refunded, "capture", "charge", 1500, "ch_\(refunded)"),
            ledger(refunded, "refund", "charge", -1500, "re_\(refunded)"),
            printJob(refunded, status: "failed"),
            order(ecard, kind: "ecard", state: "paid", total: 0, card: false),
            """
            INSERT INTO social.catalog_items (id, number, category, brand, title, description, features, price_amount,
                                              currency, available, image_url, rating_tenths)
            VALUES ('\(item)', 1, 'books', 'b', 't', 'd', '{}', 2500, 'EUR', true, 'https://example.org/i.png', 40)
            """,
            order(gift, kind: "gift", state: "paid", total: 2500, details: giftDetails),
            ledger(gift, "authorize", "hold", 2500, "pi_\(gift)"),
            event("orders.paid", #"{"orderId": "\#(gift)", "kind": "gift"}"#),
            event("orders.gift_received", "{}"),
            notification(mail, device: false),
            """
            INSERT INTO notify.deliveries (notification_id, user_id, channel, target, outcome, at)
            VALUES ('\(mail)', '\(user)', 'email', 'a@example.org', 'sent', now())
            """,
            job("notify", state: "done"),
            """
            INSERT INTO hydration.drinks (user_id, uuid, category, amount, unit, drank_at, utc_offset_seconds, local_day,
                                          modified_at, modified_by, seq)
            SELECT '\(user)', d.uuid::uuid, 'glass', 250, 'ml', now(), 0, current_date, now(), 'phone', d.seq
            FROM unnest(ARRAY['\(drinks[0])', '\(drinks[1])'], ARRAY[1, 2]) AS d(uuid, seq)
            """,
            """
            INSERT INTO civic.jurisdictions (id, name, level, updated_at)
            VALUES ('ocd-jurisdiction/test', 'Test', 'state', now()) ON CONFLICT DO NOTHING
            """,
            """
            INSERT INTO civic.subscriptions (id, secret_hash, device_token, platform, app, apns_environment,
                                             jurisdictions, created_at, updated_at)
            VALUES ('\(subscription)', 'h', 'token-\(subscription)', 'android', 'politimap', 'production',
                    ARRAY['ocd-jurisdiction/test'], now() - interval '1 hour', now() - interval '1 hour')
            """,
            """
            INSERT INTO civic.bills (id, source_id, jurisdiction_id, level, session, identifier, title, status,
                                     source_updated_at, activity_at, introduced_at, detail, fingerprints, imported_at, search_text)
            VALUES ('\(bill)', 'ocd-bill/\(bill)', 'ocd-jurisdiction/test', 'state', '2026', 'HB 1', 'A bill', 'introduced',
                    now(), now(), now(), '{}', '{}', now(), 'a bill')
            """,
            event("civic.bill_introduced", #"{"billId": "\#(bill)"}"#),
            "INSERT INTO civic.import_runs (id, started_at, finished_at) VALUES (gen_random_uuid(), now(), now())",
            job("civic", state: "done"),
            """
            INSERT INTO civic.pushes (id, subscription_id, kind, bills, title, body, decided_at, sent_at)
            VALUES ('\(push)', '\(subscription)', 'bill', 1, 't', 'b', now(), now())
            """,
            """
            INSERT INTO civic.push_outbox (subscription_id, bill_id, created_at, push_id)
            VALUES ('\(subscription)', '\(bill)', now(), '\(push)')
            """,
            notification(push, device: true),
            // notify has handled orders.paid up to here: later events of that topic are its work.
            """
            INSERT INTO events.handled (consumer, event_id, handled_at)
            SELECT 'notify', id, now() FROM events.log WHERE topic = 'orders.paid'
            """,
            """
            INSERT INTO events.consumers (name, last_xid, last_seq, updated_at)
            SELECT 'notify', pg_current_xact_id(), max(seq), now() FROM events.log
            """,
        ]
    }
}
