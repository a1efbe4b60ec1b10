import Contract
import Foundation
import HydrationContract
import HydrationService
import Testing

/// What a reminder says through the day: the rule alone, the due time passed in.
@Suite("hydration: a reminder's amount for now, across the day (no I/O)")
struct ReminderTextTests {
    static let ounce = 100 * DrinkVolume.femtolitresPerCentiOunce
    static let millilitre = DrinkVolume.femtolitresPerMillilitre

    /// 64 oz in New York, eight reminders between 07:00 and 22:00: 08:40, 10:20, 12:00, 13:40,
    /// 15:20, 17:00, 18:40 and 20:20.
    static func imperial(goal: Double = 64) throws -> DailyPlan {
        try PlanRules.validate(
            .init(
                dailyGoal: goal, unit: .oz, remindersPerDay: 8, wake: "07:00", sleep: "22:00",
                timeZone: "America/New_York"))
    }

    /// 2,000 ml in Berlin, five reminders between 08:00 and 20:00: 10:00, 12:00, 14:00, 16:00, 18:00.
    static func metric() throws -> DailyPlan {
        try PlanRules.validate(
            .init(
                dailyGoal: 2_000, unit: .ml, remindersPerDay: 5, wake: "08:00", sleep: "20:00",
                timeZone: "Europe/Berlin"))
    }

    static func at(_ text: String) throws -> Int64 { try LocalMoment.parse(text, field: "at").micros }

    static func text(_ plan: DailyPlan, logged: Int64, at: String) throws -> String? {
        ReminderText.reminder(plan: plan, logged: logged, at: try Self.at(at))?.text
    }

    @Test("imperial: the morning's first reminder, midday partly logged, the last one, the goal met")
    func imperialDay() throws {
        let plan = try Self.imperial()
        #expect(
            plan.reminderTimes.map(\.description) == [
                "08:40", "10:20", "12:00", "13:40", "15:20", "17:00", "18:40", "20:20",
            ])

        let morning = try #require(
            ReminderText.reminder(plan: plan, logged: 0, at: try Self.at("2026-11-24T08:40:00-05:00")))
        #expect(morning.text == "Time for a glass: 8 oz now keeps you on track for 64 oz")
        #expect(morning.amount == 8 * Self.ounce && morning.remaining == 64 * Self.ounce && morning.remindersLeft == 8)

        // Noon, the third of eight: a bottle logged leaves 48 oz over six reminders.
        #expect(
            try Self.text(plan, logged: 16 * Self.ounce, at: "2026-11-24T12:00:00-05:00")
                == "Time for a glass: 8 oz now keeps you on track for 64 oz")
        // 12 oz logged leaves 52 oz over six: 8.67 oz, rounded up to whole drinks.
        let behind = try #require(
            ReminderText.reminder(plan: plan, logged: 12 * Self.ounce, at: try Self.at("2026-11-24T12:00:00-05:00")))
        #expect(behind.text == "Time for a glass and a drink: 12 oz now keeps you on track for 64 oz")
        #expect(behind.remindersLeft == 6 && behind.amount == 12 * Self.ounce && behind.remaining == 52 * Self.ounce)

        // The last reminder asks for all that is left, in the app's sizes.
        #expect(
            try Self.text(plan, logged: 40 * Self.ounce, at: "2026-11-24T20:20:00-05:00")
                == "Time for a bottle and a glass: 24 oz now keeps you on track for 64 oz")
        #expect(
            try Self.text(plan, logged: 62 * Self.ounce, at: "2026-11-24T20:20:00-05:00")
                == "Time for a drink: 4 oz now keeps you on track for 64 oz",
            "less than a drink left is still a drink")
        #expect(
            try Self.text(plan, logged: 36 * Self.ounce, at: "2026-11-24T20:20:00-05:00")
                == "Time for a bottle, a glass and a drink: 28 oz now keeps you on track for 64 oz")
        #expect(
            try Self.text(plan, logged: 0, at: "2026-11-24T21:30:00-05:00")
                == "Time for four bottles: 64 oz now keeps you on track for 64 oz",
            "after the last reminder, all that is left")

        #expect(try Self.text(plan, logged: 64 * Self.ounce, at: "2026-11-24T13:40:00-05:00") == nil, "goal met")
        #expect(try Self.text(plan, logged: 70 * Self.ounce, at: "2026-11-24T20:20:00-05:00") == nil)
    }

    @Test("metric: millilitres of the app's sizes, against the goal in millilitres")
    func metricDay() throws {
        let plan = try Self.metric()
        #expect(plan.reminderTimes.map(\.description) == ["10:00", "12:00", "14:00", "16:00", "18:00"])
        // 400 ml a reminder is 3.4 drinks: four, a bottle (16 oz, 473 ml).
        #expect(
            try Self.text(plan, logged: 0, at: "2026-11-24T10:00:00+01:00")
                == "Time for a bottle: 473 ml now keeps you on track for 2000 ml")
        // 1,000 ml logged by 14:00 leaves 333 ml for each of three: three drinks.
        #expect(
            try Self.text(plan, logged: 1_000 * Self.millilitre, at: "2026-11-24T14:00:00+01:00")
                == "Time for a glass and a drink: 355 ml now keeps you on track for 2000 ml")
        #expect(
            try Self.text(plan, logged: 1_900 * Self.millilitre, at: "2026-11-24T18:00:00+01:00")
                == "Time for a drink: 118 ml now keeps you on track for 2000 ml")
        #expect(try Self.text(plan, logged: 2_000 * Self.millilitre, at: "2026-11-24T16:00:00+01:00") == nil)
    }

    @Test("the zone's offset at the instant decides which reminder it is (DST), also over midnight")
    func clockChanges() throws {
        let plan = try Self.imperial()
        // 1 November 2026, clocks went back at 02:00: 17:00Z is 12:00 EST, the third reminder (six
        // left); yesterday's offset would make it 13:00 (five left, 9.6 oz: 12).
        #expect(
            try Self.text(plan, logged: 16 * Self.ounce, at: "2026-11-01T17:00:00Z")
                == "Time for a glass: 8 oz now keeps you on track for 64 oz")
        let night = try PlanRules.validate(
            .init(dailyGoal: 16, unit: .oz, remindersPerDay: 3, wake: "20:00", sleep: "08:00", timeZone: "UTC"))
        #expect(night.reminderTimes.map(\.description) == ["23:00", "02:00", "05:00"])
        // 02:00 is the second of three in waking order: 16 oz over two.
        #expect(
            try Self.text(night, logged: 0, at: "2026-11-25T02:00:00Z")
                == "Time for a glass: 8 oz now keeps you on track for 16 oz")
        #expect(
            try Self.text(try Self.imperial(goal: 64.5), logged: 0, at: "2026-11-24T08:40:00-05:00")
                == "Time for a glass and a drink: 12 oz now keeps you on track for 64.5 oz")
    }
}
