import Contract
import Foundation
import NotifyContract
import NotifyService
import Store
import Testing

/// Notifications, inbox, preferences and schedules against a real PostgreSQL.
@Suite("notify: store against PostgreSQL")
struct StoreTests {
    func send(
        _ world: NotifyWorld, _ user: UUID, kind: Notify.Kind = .orderFailed, id: UUID = UUID(),
        variables: [String: String] = ["orderId": "o-1", "reason": "card declined"]
    ) async throws -> Notify.Send.Reply {
        try await world.store.submit(
            Submission(id: id, userId: user, email: nil, kind: kind, variables: variables))
    }

    @Test("the notification id is the idempotency key: same content → created false, other content → conflict")
    func idempotency() async throws {
        try await NotifyWorld.with { world in
            let user = UUID()
            let id = UUID()
            let first = try await send(world, user, id: id)
            #expect(first.created && first.channels == ["email", "push", "inapp"])
            let again = try await send(world, user, id: id)
            #expect(!again.created)
            await #expect(throws: ServiceError.self) {
                _ = try await send(world, user, id: id, variables: ["orderId": "o-2", "reason": "x"])
            }
            #expect(try await world.count("SELECT count(*)::int8 FROM \(unescaped: world.schema).jobs") == 2)
            #expect(try await world.store.unreadCount(of: user) == 1)
        }
    }

    @Test("inbox: newest first, pages by cursor, unread filter, mark read, unread count; others' items are not found")
    func inbox() async throws {
        try await NotifyWorld.with { world in
            let user = UUID()
            var ids: [String] = []
            for index in 0..<5 {
                ids.append(
                    try await send(world, user, variables: ["orderId": "o-\(index)", "reason": "r"]).notificationId)
                world.clock.advance(by: 1)
            }
            let first = try await world.store.inbox(of: user, .init(limit: 2))
            #expect(first.items.map(\.notificationId) == [ids[4], ids[3]])
            #expect(first.unreadCount == 5)
            let second = try await world.store.inbox(of: user, .init(cursor: first.nextCursor, limit: 2))
            #expect(second.items.map(\.notificationId) == [ids[2], ids[1]])
            let last = try await world.store.inbox(of: user, .init(cursor: second.nextCursor, limit: 2))
            #expect(last.items.map(\.notificationId) == [ids[0]] && last.nextCursor == nil)
            #expect(try await world.store.markRead(ids[4], of: user) == 4)
            #expect(try await world.store.markRead(ids[4], of: user) == 4, "again is fine")
            let unread = try await world.store.inbox(of: user, .init(unreadOnly: true))
            #expect(unread.items.count == 4 && !unread.items.contains { $0.notificationId == ids[4] })
            await #expect(throws: ServiceError.self) { _ = try await world.store.markRead(ids[3], of: UUID()) }
            #expect(last.items.first?.title == "Your order could not be completed")
        }
    }

    @Test(
        "preferences: an opted-out channel is skipped and logged; critical kinds cannot be switched off and ignore opt-outs"
    )
    func preferences() async throws {
        try await NotifyWorld.with { world in
            let user = UUID()
            let saved = try await world.store.setPreferences(
                .init(
                    timeZone: "Europe/Stockholm", quietHours: nil, locale: "sv",
                    channels: [.init(kind: Notify.Kind.orderFailed, channel: Notify.Channel.email, enabled: false)]),
                of: user)
            #expect(saved.channels == [.init(kind: Notify.Kind("order_failed"), channel: "email", enabled: false)])
            #expect(saved.locale == "sv" && saved.timeZone == "Europe/Stockholm")
            let reply = try await send(world, user)
            #expect(reply.channels == ["push", "inapp"])
            let id = try #require(UUID(uuidString: reply.notificationId))
            #expect(try await world.outcomes(id, "email") == ["skipped"])
            #expect(
                try await world.store.inbox(of: user, .init()).items.first?.title
                    == "Din beställning kunde inte slutföras")
            do {
                _ = try await world.store.setPreferences(
                    .init(
                        timeZone: "UTC", quietHours: nil, locale: nil,
                        channels: [.init(kind: Notify.Kind.passwordReset, channel: "email", enabled: false)]),
                    of: user)
                Issue.record("a critical kind was switched off")
            } catch let error as ServiceError {
                #expect(error.code == .failedPrecondition)
            }
            await #expect(throws: ServiceError.self) {
                _ = try await world.store.setPreferences(
                    .init(timeZone: "Mars/Olympus", quietHours: nil, locale: nil, channels: []), of: user)
            }
        }
    }

    @Test("quiet hours hold e-mail and push of a non-critical kind until they end; a critical one goes now")
    func quietHours() async throws {
        // 2024-01-01T00:00:00Z is 01:00 in Stockholm, inside 22:00-07:00.
        try await NotifyWorld.with { world in
            let user = UUID()
            _ = try await world.store.setPreferences(
                .init(
                    timeZone: "Europe/Stockholm", quietHours: .init(start: "22:00", end: "07:00"), locale: nil,
                    channels: []), of: user)
            _ = try await send(world, user)
            #expect(try await world.store.queue.claim(limit: 10, lease: 60).isEmpty, "held until 07:00 local")
            _ = try await world.store.submit(
                Submission(
                    id: UUID(), userId: user, email: "ann@example.org", kind: Notify.Kind.passwordReset,
                    variables: ["username": "ann", "token": "t", "expiresAt": "soon"]))
            let critical = try await world.store.queue.claim(limit: 10, lease: 60)
            #expect(critical.map(\.kind) == ["email"], "critical mail is not held")
            for job in critical { try await world.store.queue.complete(job) }
            world.clock.advance(by: 6 * 3600 - 1)
            #expect(try await world.store.queue.claim(limit: 10, lease: 60).isEmpty)
            world.clock.advance(by: 1)
            #expect(Set(try await world.store.queue.claim(limit: 10, lease: 60).map(\.kind)) == ["email", "push"])
        }
    }

    @Test("occurrences fired in a batch follow each user's settings: quiet hours hold the push, an opt-out skips it")
    func batchedOccurrencesFollowSettings() async throws {
        // 2024-01-01T00:00:00Z is 01:00 in Stockholm, inside 22:00-07:00.
        try await NotifyWorld.with { world in
            let (quiet, optedOut, plain) = (UUID(), UUID(), UUID())
            _ = try await world.store.setPreferences(
                .init(
                    timeZone: "Europe/Stockholm", quietHours: .init(start: "22:00", end: "07:00"), locale: nil,
                    channels: []), of: quiet)
            _ = try await world.store.setPreferences(
                .init(
                    timeZone: "UTC", quietHours: nil, locale: nil,
                    channels: [.init(kind: Notify.Kind.reminder, channel: Notify.Channel.push, enabled: false)]),
                of: optedOut)
            let at = Int64((world.clock.now().timeIntervalSince1970 + 60) * 1000)
            for user in [quiet, optedOut, plain] {
                _ = try await world.scheduleHandler.create(
                    .init(variables: ["text": "Stretch"], at: at, timeZone: "UTC"), for: user)
            }
            world.clock.advance(by: 60)
            #expect(try await world.schedules.fireDue().count == 3)
            #expect(try await world.schedules.fireDue().isEmpty, "fired once")
            let due = try await world.store.queue.claim(limit: 10, lease: 60)
            #expect(due.count == 1, "only the plain user's push is due now")
            for job in due { try await world.store.queue.complete(job) }
            let skipped = try await world.count(
                """
                SELECT count(*)::int8 FROM \(unescaped: world.schema).deliveries
                WHERE user_id = \(optedOut) AND channel = 'push' AND outcome = 'skipped'
                """)
            #expect(skipped == 1, "the opted-out push is logged as skipped")
            let inbox = try await world.count(
                "SELECT count(*)::int8 FROM \(unescaped: world.schema).notifications WHERE in_inbox")
            #expect(inbox == 3, "every occurrence is an inbox item")
            world.clock.advance(by: 6 * 3600)
            #expect(try await world.store.queue.claim(limit: 10, lease: 60).count == 1, "the held push after 07:00")
        }
    }

    @Test("schedules across a time zone: each occurrence fires once even with three replicas firing at once")
    func schedules() async throws {
        // Monday 2024-01-01 00:00Z = 01:00 Stockholm.
        try await NotifyWorld.with { world in
            let users = (0..<30).map { _ in UUID() }
            for user in users {
                let schedule = try await world.scheduleHandler.create(
                    .init(
                        variables: ["text": "Drink water"], timesOfDay: ["08:00", "12:30"], timeZone: "Europe/Stockholm"
                    ),
                    for: user)
                #expect(schedule.nextAt == 1_704_092_400_000, "08:00 CET = 07:00Z")
            }
            let once = try await world.scheduleHandler.create(
                .init(variables: ["text": "once"], at: 1_704_070_800_000), for: users[0])
            #expect(once.nextAt == 1_704_070_800_000)
            // A whole day in 15-minute steps, three "replicas" firing concurrently at each step.
            for _ in 0..<(24 * 4) {
                world.clock.advance(by: 900)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<3 { group.addTask { try await world.schedules.fireDue() } }
                    try await group.waitForAll()
                }
            }
            let fired = try await world.count(
                "SELECT count(*)::int8 FROM \(unescaped: world.schema).notifications WHERE kind = 'reminder'")
            #expect(fired == 30 * 2 + 1, "two occurrences per user in the day, plus the one-off")
            let listed = try await world.schedules.list(of: users[0])
            #expect(listed.count == 2)
            let recurring = try #require(listed.first { $0.at == nil })
            #expect(recurring.nextAt == 1_704_178_800_000, "next: Tuesday 08:00 CET")
            #expect(listed.first { $0.at != nil }?.nextAt == nil, "the one-off is spent")
            try await world.scheduleHandler.delete(recurring.scheduleId, of: users[0])
            await #expect(throws: ServiceError.self) {
                try await world.scheduleHandler.delete(recurring.scheduleId, of: users[0])
            }
        }
    }
}
