import Contract
import Foundation
import HydrationContract
import HydrationService
import PostgresNIO
import Testing

@Suite("hydration: drinks, history and plans through the operations (PostgreSQL)")
struct DrinkOperationTests {
    @Test("logging is idempotent by UUID: same content answers the first drink, other content is a conflict")
    func idempotentLog() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            let uuid = UUID().uuidString.lowercased()
            let draft = Hydration.DrinkDraft(
                uuid: uuid, category: "glass", drankAt: "2026-11-24T08:15:00-05:00", deviceId: "phone")
            let first = try await db.call(Hydration.LogDrink.self, draft, as: user)
            #expect(first.created)
            #expect(first.body.volume == Hydration.Volume(ml: 237, oz: 8))
            #expect(first.body.localDay == "2026-11-24" && first.body.drankAt == "2026-11-24T08:15:00-05:00")
            db.clock.advance(by: 60)
            let again = try await db.call(Hydration.LogDrink.self, draft, as: user)
            #expect(!again.created && again.body == first.body)
            var other = draft
            other.category = "bottle"
            let conflict = await db.error(Hydration.LogDrink.self, other, as: user)
            #expect(conflict?.code == .conflict)
            // The same UUID is another drink for another user.
            #expect(try await db.call(Hydration.LogDrink.self, other, as: UUID()).created)
            let list = try await db.call(Hydration.ListDrinks.self, .init(), as: user)
            #expect(list.items.map(\.uuid) == [uuid])
        }
    }

    @Test("50 identical logs at once store one drink")
    func concurrentLogs() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            let draft = Hydration.DrinkDraft(
                uuid: UUID().uuidString, category: "custom", volume: .init(value: 330, unit: .ml),
                drankAt: "2026-11-24T09:00:00+01:00")
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await db.call(Hydration.LogDrink.self, draft, as: user).created }
                }
                var count = 0
                for try await created in group where created { count += 1 }
                return count
            }
            #expect(created == 1)
            let rows = try await db.client.query(
                "SELECT count(*)::int8 FROM hydration.drinks WHERE user_id = \(user)", logger: HydrationDatabase.logger)
            for try await count in rows.decode(Int64.self) { #expect(count == 1) }
        }
    }

    @Test("40 different drinks at once each take their own change number, in the order they committed")
    func concurrentDifferentLogs() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for minute in 0..<40 {
                    let draft = Hydration.DrinkDraft(
                        uuid: UUID().uuidString, category: "glass",
                        drankAt: String(format: "2026-11-24T09:%02d:00+01:00", minute))
                    group.addTask {
                        let created = try await db.call(Hydration.LogDrink.self, draft, as: user).created
                        #expect(created)
                    }
                }
                try await group.waitForAll()
            }
            let rows = try await db.client.query(
                """
                SELECT count(*)::int8, count(DISTINCT seq)::int8, max(seq),
                       (SELECT last_seq FROM hydration.users WHERE user_id = \(user))
                FROM hydration.drinks WHERE user_id = \(user)
                """, logger: HydrationDatabase.logger)
            for try await (drinks, numbers, highest, counter) in rows.decode((Int64, Int64, Int64, Int64).self) {
                #expect(drinks == 40 && numbers == 40 && highest == 40 && counter == 40)
            }
        }
    }

    @Test("bad drinks are 400s naming the field")
    func badDrinks() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            func field(_ draft: Hydration.DrinkDraft) async -> String? {
                await db.error(Hydration.LogDrink.self, draft, as: user)?.field
            }
            let uuid = UUID().uuidString
            #expect(await field(.init(uuid: uuid, category: "glass", drankAt: "2026-11-25T12:00:01Z")) == "drankAt")
            #expect(await field(.init(uuid: uuid, category: "glass", drankAt: "1999-12-31T23:59:59Z")) == "drankAt")
            #expect(await field(.init(uuid: uuid, category: "glass", drankAt: "2026-11-24T10:00:00")) == "drankAt")
            #expect(await field(.init(uuid: uuid, category: "mug", drankAt: "2026-11-24T10:00:00Z")) == "category")
            #expect(await field(.init(uuid: "123", category: "glass", drankAt: "2026-11-24T10:00:00Z")) == "uuid")
            #expect(
                await field(
                    .init(
                        uuid: uuid, category: "custom", volume: .init(value: 5_001, unit: .ml),
                        drankAt: "2026-11-24T10:00:00Z"))
                    == "volume")
            #expect(
                await db.error(
                    Hydration.LogDrink.self, .init(uuid: uuid, category: "glass", drankAt: "2026-11-24T10:00:00Z"),
                    as: nil)?.code == .unauthenticated)
        }
    }

    @Test("fix, delete and page: only the owner's live drinks, newest first, between from and to")
    func fixDeleteAndPage() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            var uuids: [String] = []
            for hour in 0..<7 {
                let uuid = UUID().uuidString.lowercased()
                uuids.append(uuid)
                _ = try await db.call(
                    Hydration.LogDrink.self,
                    .init(uuid: uuid, category: "drink", drankAt: "2026-11-23T0\(hour + 1):00:00Z"), as: user)
            }
            let fixed = try await db.call(
                Hydration.UpdateDrink.self, .init(uuid: uuids[0], category: "bottle"), as: user)
            #expect(fixed.category == .bottle && fixed.volume.oz == 16)
            let moved = try await db.call(
                Hydration.UpdateDrink.self,
                .init(uuid: uuids[0], volume: .init(value: 500, unit: .ml), drankAt: "2026-11-23T00:30:00+02:00"),
                as: user)
            #expect(moved.volume == Hydration.Volume(ml: 500, oz: 16.91) && moved.localDay == "2026-11-23")
            #expect(
                await db.error(Hydration.UpdateDrink.self, .init(uuid: uuids[1], category: "glass"), as: UUID())?.code
                    == .notFound)
            #expect(await db.error(Hydration.DeleteDrink.self, .init(uuid: uuids[1]), as: UUID())?.code == .notFound)
            _ = try await db.call(Hydration.DeleteDrink.self, .init(uuid: uuids[1]), as: user)
            #expect(await db.error(Hydration.DeleteDrink.self, .init(uuid: uuids[1]), as: user)?.code == .notFound)
            #expect(
                await db.error(Hydration.UpdateDrink.self, .init(uuid: uuids[1], category: "glass"), as: user)?.code
                    == .notFound)
            let relog = await db.error(
                Hydration.LogDrink.self, .init(uuid: uuids[1], category: "drink", drankAt: "2026-11-23T02:00:00Z"),
                as: user)
            #expect(relog?.code == .conflict, "a deleted drink's UUID is not reused")

            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await db.call(
                    Hydration.ListDrinks.self,
                    .init(from: "2026-11-23T02:00:00Z", to: "2026-11-23T07:00:00Z", limit: 2, cursor: cursor), as: user)
                #expect(page.items.count <= 2)
                seen += page.items.map(\.uuid)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == [uuids[5], uuids[4], uuids[3], uuids[2]], "07:00 is excluded, the deleted 02:00 gone")
            #expect(await db.error(Hydration.ListDrinks.self, .init(limit: 0), as: user)?.field == "limit")
            #expect(await db.error(Hydration.ListDrinks.self, .init(cursor: "x"), as: user)?.field == "cursor")
        }
    }

    @Test("history by the user's day: totals against the plan's goal, percentages and streaks")
    func history() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            _ = try await db.call(
                Hydration.SetPlan.self,
                .init(dailyGoal: 16, unit: .oz, remindersPerDay: 0, wake: "07:00", sleep: "22:00", timeZone: "UTC"),
                as: user)
            func log(_ category: String, _ at: String) async throws {
                _ = try await db.call(
                    Hydration.LogDrink.self, .init(uuid: UUID().uuidString, category: category, drankAt: at), as: user)
            }
            try await log("bottle", "2026-11-20T10:00:00Z")
            try await log("glass", "2026-11-21T10:00:00Z")
            // 23:30 in New York is already the 22nd in UTC; it counts for the 21st.
            try await log("glass", "2026-11-21T23:30:00-05:00")
            try await log("drink", "2026-11-22T10:00:00Z")
            try await log("bottle", "2026-11-23T10:00:00Z")
            let reply = try await db.call(Hydration.History.self, .init(from: "2026-11-20", to: "2026-11-24"), as: user)
            #expect(reply.days.map(\.date) == ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"])
            #expect(reply.days.map(\.percent) == [100, 100, 25, 100, 0])
            #expect(reply.days.map(\.drinks) == [1, 2, 1, 1, 0])
            #expect(reply.days[1].total == Hydration.Volume(ml: 473, oz: 16))
            #expect(reply.streaks.map(\.days) == [2, 1])
            #expect(reply.longestStreak == 2 && reply.currentStreak == 1)
            #expect(
                await db.error(Hydration.History.self, .init(from: "2025-11-20", to: "2026-11-21"), as: user)?.field
                    == "to")
            #expect(
                await db.error(Hydration.History.self, .init(from: "2026-11-21", to: "2026-11-20"), as: user)?.field
                    == "to")
            #expect(
                await db.error(Hydration.History.self, .init(from: "2026-11-31", to: "2026-12-01"), as: user)?.field
                    == "from")
            let year = try await db.call(Hydration.History.self, .init(from: "2025-11-25", to: "2026-11-25"), as: user)
            #expect(year.days.count == 366)
        }
    }

    @Test("a past day keeps the goal it had: a new goal counts from the user's day it was set on")
    func goalHistory() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            func plan(_ goal: Double, _ unit: Hydration.Unit, zone: String = "UTC") -> Hydration.Plan {
                .init(dailyGoal: goal, unit: unit, remindersPerDay: 0, wake: "07:00", sleep: "22:00", timeZone: zone)
            }
            func glasses(_ count: Int, on day: String) async throws {
                for _ in 0..<count {
                    _ = try await db.call(
                        Hydration.LogDrink.self,
                        .init(uuid: UUID().uuidString, category: "glass", drankAt: "\(day)T10:00:00Z"), as: user)
                }
            }
            func goals(_ from: String, _ to: String) async throws -> [Double] {
                try await db.call(Hydration.History.self, .init(from: from, to: to), as: user).days.map(\.goal.oz)
            }
            // Never set: the standard 64 oz on every day.
            #expect(try await goals("2026-11-22", "2026-11-22") == [64])
            // 16 oz chosen on the 24th (the clock's day): it also holds for the days logged before.
            _ = try await db.call(Hydration.SetPlan.self, plan(16, .oz), as: user)
            try await glasses(2, on: "2026-11-23")
            try await glasses(2, on: "2026-11-24")
            // Days before the first goal, asked on their own, count against it too.
            #expect(try await goals("2026-11-21", "2026-11-23") == [16, 16, 16])
            // Two days later the goal goes up to 32 oz: the 23rd-25th stay met at 16 oz.
            db.clock.advance(by: 2 * 86_400)
            _ = try await db.call(Hydration.SetPlan.self, plan(32, .oz), as: user)
            try await glasses(3, on: "2026-11-26")
            let reply = try await db.call(Hydration.History.self, .init(from: "2026-11-23", to: "2026-11-26"), as: user)
            #expect(reply.days.map(\.goal.oz) == [16, 16, 16, 32])
            #expect(reply.days.map(\.percent) == [100, 100, 0, 75])
            #expect(reply.streaks.map(\.days) == [2])
            // A second change on one day replaces the first; saving the same goal again adds nothing.
            _ = try await db.call(Hydration.SetPlan.self, plan(24, .oz), as: user)
            _ = try await db.call(Hydration.SetPlan.self, plan(24, .oz), as: user)
            db.clock.advance(by: 86_400)
            _ = try await db.call(Hydration.SetPlan.self, plan(24, .oz), as: user)
            #expect(try await goals("2026-11-23", "2026-11-27") == [16, 16, 16, 24, 24])
            let rows = try await db.client.query(
                "SELECT count(*)::int8 FROM hydration.goals WHERE user_id = \(user)", logger: HydrationDatabase.logger)
            for try await count in rows.decode(Int64.self) { #expect(count == 2) }
            // The day a goal starts is the user's day in the plan's zone: at 2026-11-27T12:00Z it
            // is already the 28th in Auckland.
            _ = try await db.call(Hydration.SetPlan.self, plan(2_000, .ml, zone: "Pacific/Auckland"), as: user)
            let last = try await db.call(Hydration.History.self, .init(from: "2026-11-27", to: "2026-11-28"), as: user)
            #expect(last.days.map(\.goal.ml) == [710, 2_000])
        }
    }

    @Test("the plan: default until set, saved with its event, the reminder text at fire time across DST")
    func planAndReminderText() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            let initial = try await db.call(Hydration.GetPlan.self, Empty(), as: user)
            #expect(!initial.saved && initial.plan.dailyGoal == 64 && initial.reminderTimes.isEmpty)
            let plan = Hydration.Plan(
                dailyGoal: 32, unit: .oz, remindersPerDay: 3, wake: "08:00", sleep: "20:00",
                timeZone: "America/New_York")
            let saved = try await db.call(Hydration.SetPlan.self, plan, as: user)
            #expect(saved.saved && saved.reminderTimes == ["11:00", "14:00", "17:00"])
            #expect(try await db.call(Hydration.GetPlan.self, Empty(), as: user) == saved)
            #expect(
                try await db.planEvents(of: user)
                    == [
                        .init(
                            userId: user.uuidString.lowercased(), timesOfDay: ["11:00", "14:00", "17:00"],
                            timeZone: "America/New_York")
                    ])
            #expect(
                await db.error(
                    Hydration.SetPlan.self,
                    .init(
                        dailyGoal: 32, unit: .oz, remindersPerDay: 3, wake: "08:00", sleep: "20:00", timeZone: "Nowhere"
                    ), as: user)?.field == "timeZone")

            // 1 November 2026: clocks go back at 02:00 EDT. A glass at 00:10 EDT counts for the 1st.
            _ = try await db.call(
                Hydration.LogDrink.self,
                .init(uuid: UUID().uuidString, category: "glass", drankAt: "2026-11-01T00:10:00-04:00"), as: user)
            func text(at: String) async throws -> Hydration.ReminderText.Reply {
                let micros = try LocalMoment.parse(at, field: "at").micros
                return try await db.call(
                    Hydration.ReminderText.self, .init(userId: user.uuidString, at: micros / 1_000), as: nil)
            }
            // 11:00 is the first of three: 24 oz left, 8 oz each.
            let morning = try await text(at: "2026-11-01T11:00:00-05:00")
            #expect(morning.text == "Time for a glass: 8 oz now keeps you on track for 32 oz")
            #expect(morning.amount == Hydration.Volume(ml: 237, oz: 8))
            #expect(morning.remaining == Hydration.Volume(ml: 710, oz: 24))
            // The day before, in EDT, nothing was logged; after its last reminder, all of it.
            #expect(
                try await text(at: "2026-10-31T23:00:00-04:00").text
                    == "Time for two bottles: 32 oz now keeps you on track for 32 oz")
            _ = try await db.call(
                Hydration.LogDrink.self,
                .init(uuid: UUID().uuidString, category: "bottle", drankAt: "2026-11-01T12:00:00-05:00"), as: user)
            // 14:00, two reminders left for the last 8 oz.
            #expect(
                try await text(at: "2026-11-01T14:00:00-05:00").text
                    == "Time for a drink: 4 oz now keeps you on track for 32 oz")
            _ = try await db.call(
                Hydration.LogDrink.self,
                .init(uuid: UUID().uuidString, category: "glass", drankAt: "2026-11-01T15:00:00-05:00"), as: user)
            let met = try await text(at: "2026-11-01T17:00:00-05:00")
            #expect(met.skip && met.text == nil, "no reminder once the goal is met")
            #expect(
                await db.error(Hydration.ReminderText.self, .init(userId: user.uuidString, at: 0), as: user)?.code
                    == .permissionDenied)
        }
    }

    @Test("forgetting a user removes drinks, change counter, plan and goals")
    func forget() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            let keep = UUID()
            for owner in [user, keep] {
                _ = try await db.call(
                    Hydration.LogDrink.self,
                    .init(uuid: UUID().uuidString, category: "glass", drankAt: "2026-11-24T10:00:00Z"), as: owner)
                _ = try await db.call(
                    Hydration.SetPlan.self,
                    .init(
                        dailyGoal: 2000, unit: .ml, remindersPerDay: 2, wake: "07:00", sleep: "23:00", timeZone: "UTC"),
                    as: owner)
            }
            try await db.forget(user)
            #expect(try await db.call(Hydration.ListDrinks.self, .init(), as: user).items.isEmpty)
            #expect(!(try await db.call(Hydration.GetPlan.self, Empty(), as: user).saved))
            for owner in [user, keep] {
                let rows = try await db.client.query(
                    "SELECT count(*)::int8 FROM hydration.goals WHERE user_id = \(owner)",
                    logger: HydrationDatabase.logger)
                for try await count in rows.decode(Int64.self) { #expect(count == (owner == keep ? 1 : 0)) }
            }
            #expect(try await db.call(Hydration.ListDrinks.self, .init(), as: keep).items.count == 1)
            #expect(try await db.call(Hydration.GetPlan.self, Empty(), as: keep).saved)
        }
    }
}
