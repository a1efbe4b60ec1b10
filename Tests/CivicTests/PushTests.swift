import CivicContract
import CivicService
import Contract
import Foundation
import Logging
import NotifyContract
import NotifyService
import PostgresNIO
import Store
import Synchronization
import Testing

/// New-bill push: subscriptions per device token, the outbox written by the consumer of
/// `civic.bill_introduced`, and the pusher handing pushes to notify's real store (schema `notify`
/// in the same PostgreSQL), exactly once per device and bill across replays, replicas and crashes.
@Suite("civic: new-bill push (PostgreSQL, notify's store, the stand-in feed)", .serialized)
struct PushTests {
    static let city = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"
    static let county = "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government"
    static let federal = "ocd-jurisdiction/country:us/government"

    /// notify's notification store in schema `notify`, migrated afresh.
    static func notifyStore(_ db: CivicDatabase) async throws -> NotificationStore {
        try await db.client.query("DROP SCHEMA IF EXISTS notify CASCADE", logger: CivicDatabase.logger)
        try await Migrator(client: db.client, schema: "notify", logger: CivicDatabase.logger)
            .migrate(NotifyService.migrations())
        let queue = JobQueue(client: db.client, schema: "notify", clock: db.clock, logger: CivicDatabase.logger)
        return NotificationStore(client: db.client, queue: queue, clock: db.clock, logger: CivicDatabase.logger)
    }

    /// What the `civic.push` consumer does, for every `civic.bill_introduced` of this schema's
    /// bills, each in a transaction of its own (as the consumer would).
    static func consume(_ db: CivicDatabase) async throws {
        let rows = try await db.client.query(
            """
            SELECT e.payload::text, e.created_at FROM events.log e JOIN civic.bills b ON b.id::text = e.payload->>'billId'
            WHERE e.topic = 'civic.bill_introduced' ORDER BY e.seq
            """, logger: CivicDatabase.logger)
        var events: [(String, Date)] = []
        for try await event in rows.decode((String, Date).self) { events.append(event) }
        let pushes = PushStore(client: db.client, logger: CivicDatabase.logger)
        for (payload, at) in events {
            let bill = try Wire.makeDecoder().decode(Civic.BillIntroduced.self, from: Data(payload.utf8))
            try await db.client.transaction(logger: CivicDatabase.logger) { connection in
                let tx = Transaction(connection: connection, logger: CivicDatabase.logger)
                _ = try await pushes.owe(bill, introducedAt: at, now: db.clock.now(), in: tx)
            }
        }
    }

    static func pusher(_ db: CivicDatabase, _ submit: NotifyClient) -> NewBillPusher {
        let (wake, _) = AsyncStream.makeStream(of: Void.self)
        var pusher = NewBillPusher(
            pushes: PushStore(client: db.client, logger: CivicDatabase.logger), submit: submit, clock: db.clock,
            wake: wake, logger: CivicDatabase.logger)
        pusher.gather = 0
        return pusher
    }

    static func toNotify(_ store: NotificationStore) -> NotifyClient {
        NotifyClient { request in try await store.submit(try Submission(request)) }
    }

    func subscribe(_ db: CivicDatabase, token: String, _ jurisdictions: [String], subjects: [String] = [])
        async throws -> Civic.CreateSubscription.Reply
    {
        try await db.call(
            Civic.CreateSubscription.self,
            .init(deviceToken: token, platform: "android", app: "politimap", jurisdictions: jurisdictions,
                subjects: subjects))
    }

    @Test("subscriptions: created per device token without an account, replaced by the same token, changed and ended only with the secret; refusals name the field")
    func subscriptions() async throws {
        try await CivicDatabase.with { db in
            let token = "fcm-token-\(UUID().uuidString)"
            let first = try await subscribe(db, token: token, [Self.city], subjects: ["Housing", "housing", "Water"])
            #expect(first.created && first.body.subscription.subjects == ["Housing", "Water"])
            #expect(!String(decoding: try JSONEncoder().encode(first), as: UTF8.self).contains(token))
            // The same app and token again: the same subscription, a new filter and secret.
            let again = try await subscribe(db, token: token, [Self.county])
            #expect(!again.created && again.body.id == first.body.id && again.body.secret != first.body.secret)
            #expect(again.body.subscription.jurisdictions == [Self.county])
            #expect(try await db.count("SELECT count(*) FROM civic.subscriptions") == 1)
            // The old secret no longer works; an unknown id answers the same.
            let stale = await db.error(
                Civic.UpdateSubscription.self, .init(id: first.body.id, secret: first.body.secret, jurisdictions: [Self.city]))
            #expect(stale?.code == .notFound)
            let unknown = await db.error(
                Civic.UpdateSubscription.self,
                .init(id: UUID().uuidString, secret: again.body.secret, jurisdictions: [Self.city]))
            #expect(unknown?.code == .notFound && unknown?.message == stale?.message)
            let renewed = "fcm-renewed-\(UUID().uuidString)"
            let updated = try await db.call(
                Civic.UpdateSubscription.self,
                .init(id: again.body.id, secret: again.body.secret, jurisdictions: [Self.city, Self.federal],
                    subjects: ["Immigration"], deviceToken: renewed))
            #expect(updated.jurisdictions == [Self.city, Self.federal] && updated.subjects == ["Immigration"])
            #expect(try await db.count("SELECT count(*) FROM civic.subscriptions WHERE device_token LIKE 'fcm-renewed-%'") == 1)
            // Refusals, each naming its field.
            let bad: [(Civic.CreateSubscription.Request, String)] = [
                (.init(deviceToken: "", platform: "ios", app: "politimap", jurisdictions: [Self.city]), "deviceToken"),
                (.init(deviceToken: "a b", platform: "ios", app: "politimap", jurisdictions: [Self.city]), "deviceToken"),
                (.init(deviceToken: "t", platform: "symbian", app: "politimap", jurisdictions: [Self.city]), "platform"),
                (.init(deviceToken: "t", platform: "ios", app: "Politi Map", jurisdictions: [Self.city]), "app"),
                (.init(deviceToken: "t", platform: "ios", app: "politimap", apnsEnvironment: "staging",
                    jurisdictions: [Self.city]), "apnsEnvironment"),
                (.init(deviceToken: "t", platform: "ios", app: "politimap", jurisdictions: []), "jurisdictions"),
                (.init(deviceToken: "t", platform: "ios", app: "politimap", jurisdictions: ["San Luis Obispo"]),
                    "jurisdictions"),
                (.init(deviceToken: "t", platform: "ios", app: "politimap", jurisdictions: [Self.city],
                    subjects: [String(repeating: "x", count: 101)]), "subjects"),
            ]
            for (request, field) in bad {
                let error = await db.error(Civic.CreateSubscription.self, request)
                #expect(error?.code == .invalidArgument && error?.field == field, "\(field)")
            }
            // Ended with the secret only.
            #expect(await db.error(Civic.DeleteSubscription.self, .init(id: again.body.id, secret: "wrong"))?.code == .notFound)
            _ = try await db.call(Civic.DeleteSubscription.self, .init(id: again.body.id, secret: again.body.secret))
            #expect(try await db.count("SELECT count(*) FROM civic.subscriptions") == 0)
            #expect(await db.error(Civic.DeleteSubscription.self, .init(id: again.body.id, secret: again.body.secret))?.code == .notFound)
        }
    }

    @Test("the batching rule: up to three single pushes an hour, more become one summary, then wait for the hour")
    func batchingRule() {
        #expect(PushBatching.decide(pending: 1, recentSingles: 0, summaryWithinHour: false) == .singles)
        #expect(PushBatching.decide(pending: 3, recentSingles: 0, summaryWithinHour: false) == .singles)
        #expect(PushBatching.decide(pending: 4, recentSingles: 0, summaryWithinHour: false) == .summary)
        #expect(PushBatching.decide(pending: 1, recentSingles: 3, summaryWithinHour: false) == .summary)
        #expect(PushBatching.decide(pending: 1, recentSingles: 0, summaryWithinHour: true) == .wait)
        let text = PushBatching.summary(identifiers: ["AB 1", "AB 2", "SB 3", "SB 4", "SB 5"])
        #expect(text.title == "5 new bills" && text.body == "AB 1, AB 2, SB 3 and 2 more")
        #expect(SubscriptionRules.derivedID("a", "b") == SubscriptionRules.derivedID("a", "b"))
        #expect(SubscriptionRules.derivedID("a", "b") != SubscriptionRules.derivedID("a", "c"))
    }

    @Test("an import's new bills reach each subscribed device once: a summary beyond three, singles otherwise; replays, a re-import, two replicas and a crash after the hand-over send nothing twice")
    func exactlyOnce() async throws {
        try await StandinFeed.with { feed in
            try await CivicDatabase.with { db in
                let notify = try await Self.notifyStore(db)
                let cityDevice = try await subscribe(db, token: "city-\(UUID().uuidString)", [Self.city])
                let subjectDevice = try await subscribe(
                    db, token: "subject-\(UUID().uuidString)", [Self.federal, Self.county], subjects: ["immigration"])
                let importer = db.importer(feed)
                _ = try await importer.run()
                let cityBills = try await db.count(
                    "SELECT count(*) FROM civic.bills WHERE jurisdiction_id = '\(Self.city)'")
                let subjectBills = try await db.count(
                    """
                    SELECT count(*) FROM civic.bills WHERE jurisdiction_id IN ('\(Self.federal)', '\(Self.county)')
                      AND EXISTS (SELECT 1 FROM unnest(subjects) s WHERE lower(s) = 'immigration')
                    """)
                #expect(cityBills > 3 && subjectBills > 3)
                // The consumer, twice (a replayed event): each device owed each matching bill once.
                try await Self.consume(db)
                try await Self.consume(db)
                #expect(try await db.count("SELECT count(*) FROM civic.push_outbox") == cityBills + subjectBills)

                // A replica that dies right after notify took its pushes (before marking them sent).
                let killed = NotifyClient { request in
                    _ = try await notify.submit(try Submission(request))
                    throw FixtureError("killed after the hand-over")
                }
                #expect(try await Self.pusher(db, killed).round() == 0)
                #expect(try await db.count("SELECT count(*) FROM civic.pushes") == 2)
                #expect(try await db.count("SELECT count(*) FROM civic.pushes WHERE kind = 'summary'") == 2)
                #expect(try await db.count("SELECT count(*) FROM notify.notifications") == 2)
                // Its retry after the back-off, on two replicas at once: nothing new in notify.
                db.clock.advance(by: 10)
                let one = Self.pusher(db, Self.toNotify(notify))
                let two = Self.pusher(db, Self.toNotify(notify))
                async let first = one.round()
                async let second = two.round()
                #expect(try await first + second == 2)
                #expect(try await db.count("SELECT count(*) FROM civic.pushes WHERE sent_at IS NULL") == 0)
                #expect(try await db.count("SELECT count(*) FROM notify.notifications") == 2)
                #expect(try await db.count("SELECT count(*) FROM notify.jobs WHERE kind = 'push'") == 2)
                #expect(
                    try await db.count(
                        """
                        SELECT count(*) FROM notify.notifications n JOIN civic.pushes p ON p.id = n.id
                        WHERE n.kind = 'message' AND n.title = p.bills || ' new bills' AND n.user_id IS NULL
                          AND n.device->>'deviceId' = p.subscription_id::text AND NOT n.in_inbox
                        """) == 2)
                #expect(
                    try await db.count(
                        "SELECT bills FROM civic.pushes WHERE subscription_id = '\(cityDevice.body.id)'") == cityBills)
                #expect(
                    try await db.count(
                        "SELECT bills FROM civic.pushes WHERE subscription_id = '\(subjectDevice.body.id)'") == subjectBills)

                // A device subscribing later gets single pushes for two new council bills; the
                // device that had a summary within the hour waits for the hour.
                let lateDevice = try await subscribe(db, token: "late-\(UUID().uuidString)", [Self.city])
                try await feed.control("introduce", ["jurisdiction": Self.city, "count": 2])
                db.clock.advance(by: 60)
                let later = try await importer.run()
                #expect(later.billsNew == 2)
                try await Self.consume(db)
                #expect(try await Self.pusher(db, Self.toNotify(notify)).round() == 2)
                #expect(
                    try await db.count(
                        "SELECT count(*) FROM civic.pushes WHERE subscription_id = '\(lateDevice.body.id)' AND kind = 'bill'")
                        == 2)
                #expect(try await db.count("SELECT count(*) FROM notify.notifications WHERE kind = 'new_bill'") == 2)
                #expect(
                    try await db.count(
                        "SELECT count(*) FROM civic.push_outbox WHERE subscription_id = '\(cityDevice.body.id)' AND push_id IS NULL")
                        == 2)
                // An hour after its summary, the waiting device gets its two as singles.
                db.clock.advance(by: 3600)
                _ = try await Self.pusher(db, Self.toNotify(notify)).round()
                #expect(
                    try await db.count(
                        "SELECT count(*) FROM civic.pushes WHERE subscription_id = '\(cityDevice.body.id)' AND kind = 'bill'")
                        == 2)
                #expect(try await db.count("SELECT count(*) FROM notify.notifications") == 6)

                // Importing everything again (cursor forgotten) and replaying every event: nothing new.
                try await db.client.query("DELETE FROM civic.import_cursors", logger: CivicDatabase.logger)
                let third = try await importer.run()
                #expect(third.billsNew == 0)
                try await Self.consume(db)
                #expect(try await Self.pusher(db, Self.toNotify(notify)).round() == 0)
                #expect(try await db.count("SELECT count(*) FROM notify.notifications") == 6)
                #expect(try await db.count("SELECT count(*) FROM civic.push_outbox WHERE push_id IS NULL") == 0)
            }
        }
    }
}
