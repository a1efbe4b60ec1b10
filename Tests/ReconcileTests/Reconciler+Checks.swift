import Foundation
import PostgresNIO
import Store

// The checks, one query per line of the report. `stuck` is a whole number of seconds, so it is
// written into the text of the queries.
extension Session {
    mutating func orders() async throws {
        try await tally(
            "SELECT 'orders acknowledged to the client', count(*), 0 FROM acked",
            "SELECT 'acknowledged twice (same id)', count(*) - count(DISTINCT id), 1 FROM acked",
            """
            SELECT 'acknowledged but not in the database (lost)', count(*), 1
              FROM acked a WHERE NOT EXISTS (SELECT 1 FROM orders.orders o WHERE o.id = a.id)
            """,
            // A free order (total 0: a free e-card) is paid with no card and moves no money.
            """
            SELECT 'acknowledged free orders (no payment)', count(*), 0
              FROM acked a JOIN orders.orders o ON o.id = a.id WHERE o.total_amount = 0
            """,
            """
            SELECT 'acknowledged without an authorization', count(*), 1
              FROM acked a JOIN orders.orders o ON o.id = a.id
              WHERE o.total_amount > 0
                AND NOT EXISTS (SELECT 1 FROM orders.ledger l WHERE l.order_id = a.id AND l.movement = 'authorize')
            """,
            """
            SELECT 'free orders with money moved or an authorization (charged for nothing)', count(*), 1
              FROM orders.orders o
              WHERE o.total_amount = 0
                AND (o.authorization_id IS NOT NULL OR EXISTS (SELECT 1 FROM orders.ledger l WHERE l.order_id = o.id))
            """,
            """
            SELECT 'orders that cost money without a card', count(*), 1
              FROM orders.orders WHERE total_amount > 0 AND payment_method_id IS NULL
            """,
            // A capture or refund is two ledger rows (one per account) with one provider reference.
            """
            SELECT 'orders authorized more than once (double charge)', count(*), 1 FROM (
              SELECT order_id FROM orders.ledger WHERE movement = 'authorize' GROUP BY order_id HAVING count(DISTINCT provider_ref) > 1) twice
            """,
            """
            SELECT 'orders captured more than once', count(*), 1 FROM (
              SELECT order_id FROM orders.ledger WHERE movement = 'capture' GROUP BY order_id HAVING count(DISTINCT provider_ref) > 1) twice
            """,
            """
            SELECT 'failed, canceled or refunded orders whose charge account is not zero', count(*), 1 FROM (
              SELECT o.id FROM orders.orders o JOIN orders.ledger l ON l.order_id = o.id AND l.account = 'charge'
              WHERE o.state IN ('failed', 'canceled', 'refunded') GROUP BY o.id HAVING sum(l.amount) <> 0) off
            """,
            """
            SELECT 'orders pending_payment for more than \(stuck) s (stuck)', count(*), 1
              FROM orders.orders WHERE state = 'pending_payment' AND created_at < now() - interval '\(stuck) seconds'
            """,
            """
            SELECT 'orders now ' || state, count(*), 0 FROM orders.orders o JOIN acked a ON a.id = o.id GROUP BY state ORDER BY state
            """,
            // A consumer handles the topics it has handled before; an event of such a topic
            // written after its cursor and older than `stuck` waits for nobody.
            """
            SELECT 'events not handled by ' || c.name || ' (stuck)', count(l.seq), 1
              FROM events.consumers c
              LEFT JOIN events.log l ON (l.xid, l.seq) > (c.last_xid, c.last_seq)
               AND l.created_at < now() - interval '\(stuck) seconds'
               AND l.topic IN (SELECT DISTINCT e.topic FROM events.handled h JOIN events.log e ON e.id = h.event_id WHERE h.consumer = c.name)
              GROUP BY c.name ORDER BY c.name
            """)
    }

    /// Gifts: priced by social from the catalogue, never by the client (the sandbox catalogue's
    /// prices do not change during a run).
    mutating func gifts() async throws {
        try await tally(
            """
            SELECT 'acknowledged gift orders', count(*), 0
              FROM acked a JOIN orders.orders o ON o.id = a.id WHERE o.kind = 'gift'
            """,
            """
            SELECT 'gift orders not charged the catalogue''s price', count(*), 1
              FROM orders.orders o JOIN social.catalog_items c ON c.id::text = o.details->'gift'->'item'->>'id'
              WHERE o.kind = 'gift' AND (o.details->'gift'->'item'->'unitPrice'->>'amount')::bigint <> c.price_amount
            """,
            """
            SELECT 'gift orders paid more than once (two orders.paid events)', count(*), 1 FROM (
              SELECT e.payload->>'orderId' FROM events.log e
              WHERE e.topic = 'orders.paid' AND e.payload->>'kind' = 'gift' GROUP BY 1 HAVING count(*) > 1) twice
            """,
            // Each paid gift for a friend writes one orders.gift_received in the payment's
            // transaction; the notice names no order, so the two are counted.
            """
            SELECT 'gift notices (orders.gift_received) missing or repeated, against paid gifts for a friend',
              abs((SELECT count(DISTINCT e.payload->>'orderId') FROM events.log e
                     JOIN orders.orders o ON o.id::text = e.payload->>'orderId'
                    WHERE e.topic = 'orders.paid' AND o.kind = 'gift' AND o.details->'gift'->>'friendUserId' IS NOT NULL)
                  - (SELECT count(*) FROM events.log WHERE topic = 'orders.gift_received')), 1
            """)
    }

    /// Every acknowledged postcard order that was paid has a rendered print job, or was refunded.
    mutating func printing() async throws {
        try await tally(
            """
            SELECT 'paid postcard orders with a rendered print job', count(*), 0
              FROM acked a JOIN orders.orders o ON o.id = a.id
              JOIN printing.print_jobs j ON j.order_id = o.id::text AND j.status IN ('ready', 'printed', 'mailed')
              WHERE o.kind = 'postcard'
            """,
            """
            SELECT 'paid postcard orders without a rendered print job (not rendered)', count(*), 1
              FROM acked a JOIN orders.orders o ON o.id = a.id
              WHERE o.kind = 'postcard' AND o.state IN ('paid', 'in_production', 'printed', 'mailed')
                AND o.updated_at < now() - interval '\(stuck) seconds'
                AND NOT EXISTS (SELECT 1 FROM printing.print_jobs j
                                WHERE j.order_id = o.id::text AND j.status IN ('ready', 'printed', 'mailed'))
            """,
            "SELECT 'print jobs failed (their orders refunded)', count(*), 0 FROM printing.print_jobs WHERE status = 'failed'",
            """
            SELECT 'failed print jobs whose order is not refunded', count(*), 1
              FROM printing.print_jobs j JOIN orders.orders o ON o.id::text = j.order_id
              WHERE j.status = 'failed' AND o.state NOT IN ('refunded', 'failed', 'canceled')
                AND j.updated_at < now() - interval '\(stuck) seconds'
            """,
            """
            SELECT 'print jobs queued for more than \(stuck) s (stuck)', count(*), 1
              FROM printing.print_jobs WHERE status = 'queued' AND created_at < now() - interval '\(stuck) seconds'
            """)
    }

    /// The delivery log's line for a mail sent again after an interrupted hand-over (notify's
    /// `Deliverer.sendMails`), for the mail `m`.
    static let resentAfterHandover = """
        SELECT 1 FROM notify.deliveries d WHERE d.notification_id = m.notification_id AND d.channel = 'email'
           AND d.outcome = 'sent' AND d.detail LIKE 'resent after an interrupted hand-over%'
        """

    /// No delivery job stuck or dead-lettered; with the sink's mails, every e-mail logged as sent
    /// is there exactly once and nothing else is.
    mutating func notify(mails: [String: Int]?) async throws {
        try await execute("CREATE TEMP TABLE mails (notification_id uuid, copies int)")
        if let mails {
            let ids = mails.keys.sorted()
            try await connection.fetch(
                "INSERT INTO mails SELECT * FROM unnest(\(ids)::text[]::uuid[], \(ids.map { mails[$0] ?? 0 })::int[])",
                logger: logger)
        }
        try await tally(
            "SELECT 'notifications', count(*), 0 FROM notify.notifications",
            "SELECT 'delivery jobs dead-lettered', count(*), 1 FROM notify.jobs WHERE state = 'dead'",
            """
            SELECT 'delivery jobs not done after \(stuck) s (stuck)', count(*), 1
              FROM notify.jobs WHERE state IN ('queued', 'running') AND run_at < now() - interval '\(stuck) seconds'
            """)
        guard mails != nil else { return }
        try await tally(
            "SELECT 'e-mails in the SMTP sink', coalesce(sum(copies), 0), 0 FROM mails",
            """
            SELECT 'e-mails logged as sent but not in the sink (lost)', count(DISTINCT d.notification_id), 1
              FROM notify.deliveries d WHERE d.channel = 'email' AND d.outcome = 'sent'
              AND NOT EXISTS (SELECT 1 FROM mails m WHERE m.notification_id = d.notification_id)
            """,
            // A relay's 250 that notify did not live to record is sent again with the same
            // Message-ID (SMTP has no exactly-once; a receiver drops the copy): two copies are
            // right when the delivery log says so, anything else is a duplicate.
            """
            SELECT 'e-mails received more than once (same Message-ID)', count(*), 1 FROM mails m
             WHERE copies > 1 AND NOT (copies = 2 AND EXISTS (\(Self.resentAfterHandover)))
            """,
            """
            SELECT 'e-mails received twice after an interrupted hand-over (logged as resent)', count(*), 0
              FROM mails m WHERE copies = 2 AND EXISTS (\(Self.resentAfterHandover))
            """,
            """
            SELECT 'e-mails in the sink that no delivery logged as sent', count(*), 1
              FROM mails m WHERE NOT EXISTS (SELECT 1 FROM notify.deliveries d
                WHERE d.notification_id = m.notification_id AND d.channel = 'email' AND d.outcome = 'sent')
            """)
    }

    /// Every acknowledged drink is in hydration.drinks, live, exactly once.
    mutating func drinks(_ acknowledged: [String]) async throws {
        try await execute("CREATE TEMP TABLE drinks_acked (id uuid)")
        try await connection.fetch("INSERT INTO drinks_acked SELECT unnest(\(acknowledged)::text[])::uuid", logger: logger)
        try await tally(
            "SELECT 'drinks acknowledged to the client', count(*), 0 FROM drinks_acked",
            "SELECT 'drinks acknowledged twice (same UUID)', count(*) - count(DISTINCT id), 1 FROM drinks_acked",
            """
            SELECT 'drinks acknowledged but not in the database (lost)', count(*), 1
              FROM drinks_acked a WHERE NOT EXISTS (SELECT 1 FROM hydration.drinks d WHERE d.uuid = a.id AND NOT d.deleted)
            """,
            """
            SELECT 'drinks stored more than once (doubled)', count(*), 1 FROM (
              SELECT d.uuid FROM hydration.drinks d JOIN drinks_acked a ON a.id = d.uuid GROUP BY d.uuid HAVING count(*) > 1) twice
            """,
            """
            SELECT 'drinks sharing a change number with another of their user (sync would skip one)', count(*), 1 FROM (
              SELECT user_id, seq FROM hydration.drinks GROUP BY user_id, seq HAVING count(*) > 1) clash
            """)
    }

    /// Every bill has exactly one civic.bill_introduced event and every such event a bill (a kill
    /// mid-import neither loses nor repeats one); no import job is dead-lettered; new-bill pushes
    /// are owed, decided and handed to notify exactly once.
    mutating func civic(feedBills: Int?) async throws {
        try await tally(
            "SELECT 'civic bills imported', count(*), 0 FROM civic.bills",
            """
            SELECT 'civic bills without exactly one civic.bill_introduced event', count(*), 1 FROM civic.bills b
              WHERE (SELECT count(*) FROM events.log e
                     WHERE e.topic = 'civic.bill_introduced' AND e.payload->>'billId' = b.id::text) <> 1
            """,
            """
            SELECT 'civic.bill_introduced events for a bill that is not stored', count(*), 1 FROM events.log e
              WHERE e.topic = 'civic.bill_introduced'
                AND NOT EXISTS (SELECT 1 FROM civic.bills b WHERE b.id::text = e.payload->>'billId')
            """,
            "SELECT 'civic import runs (finished, failed or cut short)', count(*), 0 FROM civic.import_runs",
            "SELECT 'civic import jobs dead-lettered', count(*), 1 FROM civic.jobs WHERE state = 'dead'")
        if try await hasTable("civic.pushes"), try await hasTable("notify.notifications") {
            // Every (device, bill) a bill_introduced event after the subscription owes is in the
            // outbox, every decided push was handed to notify under its own id, and notify holds
            // no device notification civic did not decide.
            try await tally(
                "SELECT 'civic device subscriptions', count(*), 0 FROM civic.subscriptions",
                "SELECT 'civic new-bill pushes handed to notify', count(*), 0 FROM civic.pushes WHERE sent_at IS NOT NULL",
                """
                SELECT 'civic (device, bill) pairs owed but not in the outbox', count(*), 1
                  FROM events.log e JOIN civic.bills b ON b.id::text = e.payload->>'billId'
                  JOIN civic.subscriptions s ON b.jurisdiction_id = ANY (s.jurisdictions)
                   AND (cardinality(s.subjects) = 0 OR EXISTS (
                        SELECT 1 FROM unnest(s.subjects) w, unnest(b.subjects) h WHERE lower(w) = lower(h)))
                  WHERE e.topic = 'civic.bill_introduced' AND e.created_at > s.created_at
                    AND NOT EXISTS (SELECT 1 FROM civic.push_outbox o WHERE o.subscription_id = s.id AND o.bill_id = b.id)
                """,
                """
                SELECT 'civic new-bill pushes decided but not handed to notify', count(*), 1 FROM civic.pushes WHERE sent_at IS NULL
                """,
                """
                SELECT 'civic new-bill pushes marked sent that notify does not hold', count(*), 1 FROM civic.pushes p
                  WHERE p.sent_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM notify.notifications n WHERE n.id = p.id)
                """,
                """
                SELECT 'notify device notifications civic never decided', count(*), 1 FROM notify.notifications n
                  WHERE n.device IS NOT NULL AND NOT EXISTS (SELECT 1 FROM civic.pushes p WHERE p.id = n.id)
                """)
        }
        if let feedBills {
            let rows = try await connection.fetch(
                "SELECT count(*) FROM civic.bills WHERE source_id NOT LIKE 'local:%'", logger: logger
            ).rows
            let stored = try rows.first?.decode(Int.self) ?? 0
            tallies.append(
                Tally(
                    name: "civic bills the feed serves but civic does not hold (or holds extra)",
                    count: abs(feedBills - stored), bad: true))
        }
    }

    /// Our ledger against the Stripe stand-in's record, per PaymentIntent: orders.authorization_id,
    /// the ledger's capture (charge +) and refund (charge −) sums, and whether the money was released.
    mutating func stripe(_ charges: [StripeCharge]) async throws {
        try await execute(
            """
            CREATE TEMP TABLE stripe_charges (intent text, backplane_key text, status text, authorized bigint,
                                              captured bigint, refunded bigint)
            """)
        let document = String(decoding: try JSONEncoder().encode(charges), as: UTF8.self)
        try await connection.fetch(
            """
            INSERT INTO stripe_charges SELECT * FROM jsonb_to_recordset(\(document)::jsonb)
              AS c(intent text, backplane_key text, status text, authorized bigint, captured bigint, refunded bigint)
            """, logger: logger)
        try await execute(
            """
            CREATE TEMP TABLE ours AS
              SELECT o.id, o.authorization_id AS intent, o.released, o.state,
                     coalesce(sum(l.amount) FILTER (WHERE l.movement = 'capture' AND l.account = 'charge'), 0) AS captured,
                     coalesce(-sum(l.amount) FILTER (WHERE l.movement = 'refund'), 0) AS refunded
              FROM orders.orders o LEFT JOIN orders.ledger l ON l.order_id = o.id
              WHERE o.authorization_id IS NOT NULL GROUP BY o.id
            """)
        try await tally(
            "SELECT 'Stripe payments that held money', count(*), 0 FROM stripe_charges",
            """
            SELECT 'Stripe payments holding or keeping money for no order of ours', count(*), 1 FROM stripe_charges c
              WHERE (c.status = 'requires_capture' OR c.captured > c.refunded)
                AND NOT EXISTS (SELECT 1 FROM ours o WHERE o.intent = c.intent)
            """,
            """
            SELECT 'orders whose captured sum differs from Stripe''s', count(*), 1 FROM ours o JOIN stripe_charges c USING (intent)
              WHERE o.captured <> c.captured
            """,
            """
            SELECT 'orders whose refunded sum differs from Stripe''s', count(*), 1 FROM ours o JOIN stripe_charges c USING (intent)
              WHERE o.refunded <> c.refunded
            """,
            """
            SELECT 'holds left at Stripe for orders whose money we released or never took', count(*), 1
              FROM ours o JOIN stripe_charges c USING (intent)
              WHERE c.status = 'requires_capture' AND (o.released OR o.state IN ('failed', 'canceled', 'refunded'))
            """,
            """
            SELECT 'authorizations in our ledger that Stripe does not know', count(*), 1 FROM ours o
              WHERE EXISTS (SELECT 1 FROM orders.ledger l
                            WHERE l.order_id = o.id AND l.movement = 'authorize' AND l.provider = 'stripe')
                AND NOT EXISTS (SELECT 1 FROM stripe_charges c WHERE c.intent = o.intent)
            """)
    }
}
