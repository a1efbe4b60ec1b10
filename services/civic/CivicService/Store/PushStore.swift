import CivicContract
import Contract
import Foundation
import Logging
import NotifyContract
import PostgresNIO
import Store

/// What civic owes subscribed devices for new bills: the outbox (one row per device and bill,
/// written once) and the pushes decided from it (each handed to notify under its derived id).
public struct PushStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// For a new bill introduced at `introducedAt` (its event's time): one outbox row per
    /// subscription that existed then and matches (its jurisdiction among theirs, and one of
    /// their subjects among the bill's, or no subjects named), in the consumer's transaction; a
    /// replayed event adds nothing. How many were added.
    @discardableResult
    public func owe(_ bill: Civic.BillIntroduced, introducedAt: Date, now: Date, in tx: Transaction)
        async throws -> Int
    {
        let connection = tx.connection
        guard let billId = UUID(uuidString: bill.billId) else { return 0 }
        let rows = try await connection.fetch(
            """
            INSERT INTO civic.push_outbox (subscription_id, bill_id, created_at)
            SELECT s.id, b.id, \(now) FROM civic.bills b
            JOIN civic.subscriptions s ON b.jurisdiction_id = ANY (s.jurisdictions)
            WHERE b.id = \(billId) AND s.created_at <= \(introducedAt)
              AND (cardinality(s.subjects) = 0 OR EXISTS (
                  SELECT 1 FROM unnest(s.subjects) wanted, unnest(b.subjects) has WHERE lower(wanted) = lower(has)))
            ON CONFLICT DO NOTHING
            RETURNING subscription_id
            """, logger: logger)
        var added = 0
        for try await _ in rows.decode(UUID.self) { added += 1 }
        return added
    }

    /// Decides the pushes of up to `limit` devices whose oldest owed bill is at least `gather`
    /// old, taking every bill each is owed by then (so the bills of one import run go together):
    /// single pushes, or one summary when more
    /// than three would reach the device within the hour (``PushBatching``). Each device's row
    /// is locked while it is decided, so replicas never decide for the same device at once. How
    /// many pushes were decided.
    public func decide(now: Date, gather: TimeInterval, limit: Int = 100) async throws -> Int {
        let cutoff = now.addingTimeInterval(-gather)
        let hourAgo = now.addingTimeInterval(-PushBatching.window)
        return try await client.transaction(logger: logger) { connection in
            let locked = try await connection.fetch(
                """
                SELECT s.id FROM civic.subscriptions s
                WHERE s.id IN (
                    SELECT DISTINCT o.subscription_id FROM civic.push_outbox o
                    WHERE o.push_id IS NULL AND o.created_at <= \(cutoff)
                      AND NOT EXISTS (SELECT 1 FROM civic.pushes p WHERE p.subscription_id = o.subscription_id
                          AND p.kind = 'summary' AND p.decided_at > \(hourAgo))
                    LIMIT \(limit))
                FOR UPDATE OF s SKIP LOCKED
                """, logger: logger)
            var subscriptions: [UUID] = []
            for try await id in locked.decode(UUID.self) { subscriptions.append(id) }
            guard !subscriptions.isEmpty else { return 0 }
            var owed: [UUID: [(bill: UUID, identifier: String, title: String, level: String)]] = [:]
            let pending = try await connection.fetch(
                """
                SELECT o.subscription_id, b.id, b.identifier, b.title, b.level FROM civic.push_outbox o
                JOIN civic.bills b ON b.id = o.bill_id
                WHERE o.subscription_id = ANY (\(subscriptions)) AND o.push_id IS NULL
                ORDER BY o.created_at, b.introduced_at, b.id
                """, logger: logger)
            for try await (subscription, bill, identifier, title, level) in pending.decode(
                (UUID, UUID, String, String, String).self)
            {
                owed[subscription, default: []].append((bill, identifier, title, level))
            }
            var singles: [UUID: Int] = [:]
            var summarised = Set<UUID>()
            let recent = try await connection.fetch(
                """
                SELECT subscription_id, kind, count(*)::int8 FROM civic.pushes
                WHERE subscription_id = ANY (\(subscriptions)) AND decided_at > \(hourAgo)
                GROUP BY 1, 2
                """, logger: logger)
            for try await (subscription, kind, count) in recent.decode((UUID, String, Int64).self) {
                if kind == "summary" { summarised.insert(subscription) } else { singles[subscription] = Int(count) }
            }
            var decided = 0
            for subscription in subscriptions {
                guard let bills = owed[subscription], !bills.isEmpty else { continue }
                let decision = PushBatching.decide(
                    pending: bills.count, recentSingles: singles[subscription] ?? 0,
                    summaryWithinHour: summarised.contains(subscription))
                switch decision {
                case .wait:
                    continue
                case .singles:
                    for bill in bills {
                        let id = SubscriptionRules.derivedID("civic-new-bill", subscription.uuidString, bill.bill.uuidString)
                        try await record(
                            id, subscription, kind: "bill", bills: [bill.bill],
                            title: PushBatching.single(identifier: bill.identifier, title: bill.title),
                            body: bill.level, now: now, on: connection)
                        decided += 1
                    }
                case .summary:
                    let ids = bills.map(\.bill)
                    let id = SubscriptionRules.derivedID(
                        "civic-new-bills", subscription.uuidString, ids.map(\.uuidString).sorted().joined(separator: ","))
                    let text = PushBatching.summary(identifiers: bills.map(\.identifier))
                    try await record(
                        id, subscription, kind: "summary", bills: ids, title: text.title, body: text.body, now: now,
                        on: connection)
                    decided += 1
                }
            }
            return decided
        }
    }

    func record(
        _ id: UUID, _ subscription: UUID, kind: String, bills: [UUID], title: String, body: String, now: Date,
        on connection: PostgresConnection
    ) async throws {
        try await connection.fetch(
            """
            INSERT INTO civic.pushes (id, subscription_id, kind, bills, title, body, decided_at)
            VALUES (\(id), \(subscription), \(kind), \(bills.count), \(title), \(body), \(now))
            ON CONFLICT (id) DO NOTHING
            """, logger: logger)
        try await connection.fetch(
            """
            UPDATE civic.push_outbox SET push_id = \(id)
            WHERE subscription_id = \(subscription) AND bill_id = ANY (\(bills))
            """, logger: logger)
    }

    /// A decided push claimed for its hand-over to notify.
    public struct Claimed: Sendable, Equatable {
        public var id: UUID
        public var attempts: Int
        public var request: Notify.Send.Request
    }

    /// Claims up to `limit` decided pushes not yet handed over (and not held by another replica's
    /// lease), in one statement that commits at once: no transaction stays open while notify is asked.
    public func claim(now: Date, lease: TimeInterval, maxAttempts: Int, limit: Int = 100) async throws -> [Claimed] {
        let until = now.addingTimeInterval(lease)
        let rows = try await client.fetch(
            """
            UPDATE civic.pushes p SET locked_until = \(until), attempts = p.attempts + 1
            FROM civic.subscriptions s
            WHERE s.id = p.subscription_id AND p.id IN (
                SELECT id FROM civic.pushes
                WHERE sent_at IS NULL AND attempts < \(maxAttempts) AND (locked_until IS NULL OR locked_until <= \(now))
                ORDER BY decided_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING p.id, p.attempts, p.kind, p.title, p.body, s.id, s.device_token, s.platform, s.app,
                s.apns_environment
            """, logger: logger)
        var claimed: [Claimed] = []
        for try await (id, attempts, kind, title, body, subscription, token, platform, app, environment) in rows.decode(
            (UUID, Int32, String, String, String, UUID, String, String, String, String).self)
        {
            let single = kind == "bill"
            let device = Notify.PushDevice(
                deviceId: subscription.uuidString.lowercased(), token: token, platform: platform, app: app,
                apnsEnvironment: platform == "ios" ? environment : nil)
            claimed.append(
                .init(
                    id: id, attempts: Int(attempts),
                    request: .init(
                        notificationId: id.uuidString.lowercased(),
                        kind: single ? Notify.Kind.newBill : Notify.Kind.message,
                        variables: single ? ["title": title, "level": body] : ["title": title, "body": body],
                        device: device)))
        }
        return claimed
    }

    /// The push was handed over (notify has it under its id).
    public func sent(_ id: UUID, now: Date) async throws {
        try await client.fetch(
            "UPDATE civic.pushes SET sent_at = \(now), locked_until = NULL, last_error = NULL WHERE id = \(id)",
            logger: logger)
    }

    /// The hand-over failed: tried again after `retryAt`.
    public func failed(_ id: UUID, reason: String, retryAt: Date) async throws {
        try await client.fetch(
            "UPDATE civic.pushes SET locked_until = \(retryAt), last_error = \(reason) WHERE id = \(id) AND sent_at IS NULL",
            logger: logger)
    }
}
