import Contract
import Foundation
import HydrationContract
import HydrationService
import Testing

@Suite("hydration: volume, day and time arithmetic (no I/O)")
struct RulesTests {
    @Test("the app's sizes in both units; sums across units stay exact")
    func volumes() throws {
        #expect(DrinkVolume.standard(.glass)?.both == Hydration.Volume(ml: 237, oz: 8))
        #expect(DrinkVolume.standard(.drink)?.both == Hydration.Volume(ml: 118, oz: 4))
        #expect(DrinkVolume.standard(.bottle)?.both == Hydration.Volume(ml: 473, oz: 16))
        #expect(DrinkVolume.standard(.custom) == nil)
        let can = try DrinkVolume.parse(.init(value: 330, unit: .ml), field: "volume")
        #expect(can.both == Hydration.Volume(ml: 330, oz: 11.16))
        // 100 glasses of 8 oz are exactly 800 oz, whatever the millilitres round to.
        let glass = try #require(DrinkVolume.standard(.glass))
        #expect(DrinkVolume.both(femtolitres: glass.femtolitres * 100).oz == 800)
        #expect(DrinkVolume.both(femtolitres: glass.femtolitres * 100).ml == 23_659)
        #expect(try DrinkVolume.parse(.init(value: 8.25, unit: .oz), field: "v").amount == 825)
        #expect(try DrinkVolume.parse(.init(value: 5_000, unit: .ml), field: "v").femtolitres == 5_000_000_000_000_000)
    }

    @Test("goal timeline: the latest change on or before a day; the first goal before it; one per day")
    func goalTimeline() {
        let day = LocalDay(year: 2026, month: 11, day: 10)
        let timeline = GoalTimeline(
            changes: [
                .init(since: day.advanced(by: 5), femtolitres: 30), .init(since: day, femtolitres: 10),
                .init(since: day.advanced(by: 5), femtolitres: 50),
            ], unset: 99)
        #expect(timeline.changes.map(\.femtolitres) == [10, 50], "the later of two changes on one day wins")
        #expect(timeline.goal(on: day.advanced(by: -30)) == 10)
        #expect(timeline.goal(on: day) == 10)
        #expect(timeline.goal(on: day.advanced(by: 4)) == 10)
        #expect(timeline.goal(on: day.advanced(by: 5)) == 50)
        #expect(timeline.goal(on: day.advanced(by: 400)) == 50)
        #expect(GoalTimeline(changes: [], unset: 99).goal(on: day) == 99)
        let days = DailyProgress.days(
            from: day.advanced(by: 4), to: day.advanced(by: 5),
            totals: [day.advanced(by: 4): .init(femtolitres: 10, drinks: 1), day.advanced(by: 5): .init(femtolitres: 10, drinks: 1)],
            goals: timeline)
        #expect(days.map(\.percent) == [100, 20])
        #expect(days.map(\.goalMet) == [true, false])
    }

    @Test("a volume of 0, below, over 5 litres or too precise is refused, naming the field")
    func badVolumes() {
        for (value, unit) in [
            (0.0, Hydration.Unit.ml), (-1, .oz), (5_001, .ml), (169.08, .oz), (8.555, .oz), (2.5, .ml),
        ] {
            do {
                _ = try DrinkVolume.parse(.init(value: value, unit: unit), field: "volume")
                Issue.record("\(value) \(unit) was accepted")
            } catch {
                #expect(error.code == .invalidArgument && error.details?["field"] == "volume")
            }
        }
        // 169.07 oz is 4,999.98 ml: still a drink.
        #expect((try? DrinkVolume.parse(.init(value: 169.07, unit: .oz), field: "v")) != nil)
    }

    @Test("local days: the civil calendar, leap years, round trips")
    func localDays() throws {
        #expect(LocalDay(year: 1970, month: 1, day: 1).daysSinceEpoch == 0)
        #expect(try LocalDay.parse("2000-02-29", field: "from").description == "2000-02-29")
        #expect(try LocalDay.parse("2024-03-01", field: "from").advanced(by: -1).description == "2024-02-29")
        #expect(try LocalDay.parse("2026-03-01", field: "from").advanced(by: -1).description == "2026-02-28")
        #expect(LocalDay(localSeconds: -1).description == "1969-12-31")
        for text in ["1900-02-29", "2026-02-29", "2026-13-01", "2026-1-01", "20260101", "2026-04-31"] {
            #expect(throws: ServiceError.self) { try LocalDay.parse(text, field: "from") }
        }
        for days in stride(from: -719_000, through: 2_900_000, by: 997) {  // years 0032 to 9909
            let day = LocalDay(daysSinceEpoch: days)
            #expect(try LocalDay.parse(day.description, field: "d") == day)
        }
    }

    @Test("RFC 3339 with offset: the instant, the user's day and the text back")
    func moments() throws {
        let late = try LocalMoment.parse("2026-11-24T23:30:00-05:00", field: "drankAt")
        #expect(late.localDay.description == "2026-11-24")
        #expect(late.micros == 1_795_581_000_000_000)
        #expect(late.rfc3339 == "2026-11-24T23:30:00-05:00")
        let early = try LocalMoment.parse("2026-11-25T00:15:30.5+09:30", field: "drankAt")
        #expect(early.localDay.description == "2026-11-25")
        #expect(early.rfc3339 == "2026-11-25T00:15:30.500+09:30")
        let utc = try LocalMoment.parse("2026-11-24T10:00:00.123456z", field: "drankAt")
        #expect(utc.rfc3339 == "2026-11-24T10:00:00.123456Z")
        #expect(
            try LocalMoment.parse("2026-11-24T10:00:00.1234567Z", field: "d").micros == utc.micros,
            "digits past the microsecond are dropped")
        for bad in [
            "2026-11-24T10:00:00", "2026-11-24 10:00:00Z", "2026-11-24T24:00:00Z", "2026-02-30T10:00:00Z",
            "2026-11-24T10:00:00+5:00", "2026-11-24T10:00:00.Z", "2026-11-24T10:00Z", "yesterday",
        ] {
            #expect(throws: ServiceError.self, "\(bad)") { try LocalMoment.parse(bad, field: "drankAt") }
        }
    }

    @Test("drinks: a date before 2000 or over 24 h ahead, an unknown category, a bad UUID: 400 naming the field")
    func drinkRules() throws {
        let now = try LocalMoment.parse("2026-11-24T12:00:00Z", field: "now").micros
        func field(_ draft: Hydration.DrinkDraft) -> String? {
            do {
                _ = try DrinkRules.record(draft, now: now)
                return nil
            } catch {
                guard case .string(let field) = error.details?["field"] else { return "?" }
                return field
            }
        }
        let uuid = UUID().uuidString
        #expect(field(.init(uuid: uuid, category: "glass", drankAt: "2026-11-25T11:59:00Z")) == nil)
        #expect(field(.init(uuid: uuid, category: "glass", drankAt: "2026-11-25T12:00:01Z")) == "drankAt")
        #expect(field(.init(uuid: uuid, category: "glass", drankAt: "1999-12-31T23:59:59Z")) == "drankAt")
        #expect(field(.init(uuid: uuid, category: "pint", drankAt: "2026-11-24T10:00:00Z")) == "category")
        #expect(field(.init(uuid: "not-a-uuid", category: "glass", drankAt: "2026-11-24T10:00:00Z")) == "uuid")
        #expect(field(.init(uuid: uuid, category: "custom", drankAt: "2026-11-24T10:00:00Z")) == "volume")
        #expect(
            field(
                .init(
                    uuid: uuid, category: "custom", volume: .init(value: 0, unit: .ml), drankAt: "2026-11-24T10:00:00Z")
            )
                == "volume")
        #expect(
            field(.init(uuid: uuid, category: "glass", drankAt: "2026-11-24T10:00:00Z", deviceId: "")) == "deviceId")
    }

    @Test("reminders spread evenly between wake and sleep, also across midnight")
    func reminderTimes() throws {
        let wake = try ClockTime.parse("07:00", field: "wake")
        let sleep = try ClockTime.parse("22:00", field: "sleep")
        #expect(
            ReminderTimes.spread(count: 4, wake: wake, sleep: sleep).map(\.description) == [
                "10:00", "13:00", "16:00", "19:00",
            ])
        #expect(ReminderTimes.spread(count: 1, wake: wake, sleep: sleep).map(\.description) == ["14:30"])
        #expect(ReminderTimes.spread(count: 0, wake: wake, sleep: sleep).isEmpty)
        let night = ReminderTimes.spread(
            count: 3, wake: try ClockTime.parse("20:00", field: "w"), sleep: try ClockTime.parse("08:00", field: "s"))
        #expect(night.map(\.description) == ["23:00", "02:00", "05:00"])
        #expect(throws: ServiceError.self) { try ClockTime.parse("24:00", field: "wake") }
    }

    @Test("the user's day in a time zone follows its offset at that instant (DST days included)")
    func dayInZone() throws {
        func day(_ text: String) throws -> String {
            PlanRules.day(at: try LocalMoment.parse(text, field: "t").micros, in: "America/New_York").description
        }
        // Autumn: 00:30 EDT on 1 November is 04:30Z; a fixed EST offset would say 31 October.
        #expect(try day("2026-11-01T04:30:00Z") == "2026-11-01")
        #expect(try day("2026-11-02T04:30:00Z") == "2026-11-01")
        // Spring: 00:30 EDT on 9 March is 04:30Z; a fixed EST offset would say 8 March.
        #expect(try day("2026-03-09T04:30:00Z") == "2026-03-09")
        #expect(try day("2026-03-08T04:30:00Z") == "2026-03-07")
    }

    @Test("streaks: runs of days with the goal met; the current one may end yesterday")
    func streaks() {
        let goal: Int64 = 100
        let start = LocalDay(year: 2026, month: 11, day: 1)
        let met: [Int64] = [100, 120, 0, 100, 100, 100, 50]
        var totals: [LocalDay: DailyProgress.Total] = [:]
        for (index, amount) in met.enumerated() {
            totals[start.advanced(by: index)] = .init(femtolitres: amount, drinks: 1)
        }
        let days = DailyProgress.days(from: start, to: start.advanced(by: 6), totals: totals, goals: GoalTimeline(changes: [], unset: goal))
        #expect(days.map(\.percent) == [100, 120, 0, 100, 100, 100, 50])
        let streaks = DailyProgress.streaks(days)
        #expect(
            streaks == [
                .init(from: "2026-11-01", to: "2026-11-02", days: 2),
                .init(from: "2026-11-04", to: "2026-11-06", days: 3),
            ])
        #expect(DailyProgress.current(days, streaks: streaks) == 3)
        #expect(DailyProgress.percent(999, of: 1_000) == 99)
    }

    @Test("plans: goal, reminders, wake/sleep and time zone are checked by field")
    func plans() throws {
        let good = Hydration.Plan(
            dailyGoal: 64, unit: .oz, remindersPerDay: 4, wake: "07:00", sleep: "22:00", timeZone: "Europe/Stockholm")
        let plan = try PlanRules.validate(good)
        #expect(plan.goal.both == Hydration.Volume(ml: 1_893, oz: 64))
        #expect(plan.reminderTimes.count == 4)
        func field(_ change: (inout Hydration.Plan) -> Void) -> String? {
            var plan = good
            change(&plan)
            do {
                _ = try PlanRules.validate(plan)
                return nil
            } catch {
                guard case .string(let field) = error.details?["field"] else { return "?" }
                return field
            }
        }
        #expect(field { $0.dailyGoal = 0 } == "dailyGoal")
        #expect(field { $0.dailyGoal = 400 } == "dailyGoal")
        #expect(field { $0.remindersPerDay = 25 } == "remindersPerDay")
        #expect(field { $0.wake = "7:00" } == "wake")
        #expect(field { $0.sleep = "07:10" } == "sleep")
        #expect(field { $0.timeZone = "Mars/Olympus" } == "timeZone")
    }
}
