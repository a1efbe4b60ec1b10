import Contract
import Foundation
import RoutingContract
import RoutingService
import Testing

@Suite("routing: goals, vouchers and redemption (PostgreSQL)")
struct GoalTests {
    static func zone(_ name: String) throws -> TimeZone { try #require(TimeZone(identifier: name)) }
    static func at(_ text: String) throws -> Date { try #require(ISO8601DateFormatter().date(from: text)) }

    @Test("goal weeks run Monday 00:00 to Monday 00:00 on the campus's clocks; a day names its week")
    func weeks() throws {
        let pretoria = try Self.zone("Africa/Johannesburg")
        // 2026-11-19 is a Thursday; its week starts Monday 2026-11-16, 00:00 in Pretoria (22:00Z).
        let thursday = CampusWeek(containing: try Self.at("2026-11-19T12:00:00Z"), in: pretoria)
        #expect(thursday.start == "2026-11-16")
        #expect(thursday.startsAt == (try Self.at("2026-11-15T22:00:00Z")))
        #expect(thursday.endsAt == (try Self.at("2026-11-22T22:00:00Z")))
        // Sunday 22:30 UTC is already Monday 00:30 on campus: the next week.
        #expect(CampusWeek(containing: try Self.at("2026-11-22T22:30:00Z"), in: pretoria).start == "2026-11-23")
        #expect(CampusWeek(containing: try Self.at("2026-11-22T21:59:59Z"), in: pretoria).start == "2026-11-16")
        #expect(CampusWeek(containing: thursday.endsAt, in: pretoria).startsAt == thursday.endsAt)
        #expect(
            CampusWeek(containing: try Self.at("2026-11-22T22:30:00Z"), in: try Self.zone("UTC")).start
                == "2026-11-16", "the same instant in a UTC week")

        #expect(CampusWeek(day: "2026-11-22", in: pretoria)?.start == "2026-11-16")
        #expect(CampusWeek(day: "2026-11-23", in: pretoria)?.start == "2026-11-23")
        #expect(CampusWeek(day: "2027-01-01", in: pretoria)?.start == "2026-12-28")
        #expect(CampusWeek(day: "2026-02-30", in: pretoria) == nil)
        #expect(CampusWeek(day: "next week", in: pretoria) == nil)
    }

    @Test("a week with a daylight saving change on campus is 167 or 169 hours; its days keep their week")
    func weeksAcrossClockChanges() throws {
        let berlin = try Self.zone("Europe/Berlin")
        // Clocks go forward on Sunday 28 March 2027 and back on Sunday 31 October 2027.
        let spring = try #require(CampusWeek(day: "2027-03-24", in: berlin))
        #expect(spring.start == "2027-03-22")
        #expect(spring.startsAt == (try Self.at("2027-03-21T23:00:00Z")))
        #expect(spring.endsAt == (try Self.at("2027-03-28T22:00:00Z")))
        #expect(spring.endsAt.timeIntervalSince(spring.startsAt) == 167 * 3_600)
        let autumn = try #require(CampusWeek(day: "2027-10-31", in: berlin))
        #expect(autumn.start == "2027-10-25")
        #expect(autumn.endsAt.timeIntervalSince(autumn.startsAt) == 169 * 3_600)
        #expect(autumn.endsAt == (try Self.at("2027-10-31T23:00:00Z")))
        // Sunday 23:30 in Berlin after the change back (22:30Z) is still that week.
        #expect(CampusWeek(containing: try Self.at("2027-10-31T22:30:00Z"), in: berlin) == autumn)

        let losAngeles = try Self.zone("America/Los_Angeles")
        let march = CampusWeek(containing: try Self.at("2027-03-14T12:00:00Z"), in: losAngeles)
        #expect(march.start == "2027-03-08")
        #expect(march.startsAt == (try Self.at("2027-03-08T08:00:00Z")))
        #expect(march.endsAt == (try Self.at("2027-03-15T07:00:00Z")))
        // Sunday 23:30 PDT is 06:30Z on Monday: still the week of the 8th.
        #expect(CampusWeek(containing: try Self.at("2027-03-15T06:30:00Z"), in: losAngeles).start == "2027-03-08")
        #expect(CampusWeek(day: "2027-03-15", in: losAngeles)?.startsAt == march.endsAt)
    }

    @Test("activity at Monday 00:30 on campus (Sunday 22:30 UTC) counts for the new week's goals")
    func campusWeekBoundary() async throws {
        try await RoutingDatabase.with { db in
            let week = db.week
            let next = db.goals.week(containing: week.endsAt)
            #expect(next.startsAt == week.endsAt && next.start != week.start)
            let goal = try await db.goalStore.create(
                .init(title: "Monday early", metric: "steps", target: 1_000, reward: "a muffin"), week: next,
                id: UUID(), now: db.clock.now())
            let user = UUID()
            // Sunday 23:30 on campus: the old week.
            db.clock.set(week.endsAt.addingTimeInterval(-1_800))
            let late = try await db.goals.report(
                steps: 700, distance: 500, user: user, now: db.clock.now(), requestId: nil)
            #expect(late.weekStart == week.start && late.steps == 700)
            #expect(late.weekStartsAt == week.startsAt && late.weekEndsAt == week.endsAt)
            // Monday 00:30 on campus, still Sunday in UTC: the new week, whose goal it completes.
            db.clock.set(week.endsAt.addingTimeInterval(1_800))
            let early = try await db.goals.report(
                steps: 1_200, distance: 900, user: user, now: db.clock.now(), requestId: nil)
            #expect(early.weekStart == next.start && early.steps == 1_200)
            #expect(early.justCompleted == [goal.id])
            let old = try await db.goals.myWeek(user: user, week: week)
            #expect(old.steps == 700 && old.goals.allSatisfy { $0.goal.id != goal.id })
        }
    }

    @Test("voucher codes: 100 random bits, typed in any case with O for 0 and I for 1")
    func codes() {
        let code = VoucherCode.make()
        #expect(code.count == 23)
        #expect(VoucherCode.canonical(code) == code)
        #expect(VoucherCode.canonical(code.lowercased().replacingOccurrences(of: "-", with: " ")) == code)
        #expect(VoucherCode.canonical("0000011111ABCDE22222") == "00000-11111-ABCDE-22222")
        #expect(VoucherCode.canonical("ooooo-iiiii-abcde-22222") == "00000-11111-ABCDE-22222")
        #expect(VoucherCode.canonical("UUUUU-11111-ABCDE-22222") == nil)
        #expect(VoucherCode.canonical("short") == nil)
        #expect(Set((0..<1000).map { _ in VoucherCode.make() }).count == 1000)
    }

    @Test("reaching a goal issues one voucher and one goal_completed event, never a second")
    func completion() async throws {
        try await RoutingDatabase.with { db in
            let steps = try await db.goal("steps", target: 10_000)
            let distance = try await db.goal("distance", target: 50_000, title: "50 km")
            let user = UUID()
            let first = try await db.goals.report(
                steps: 6_000, distance: 4_000, user: user, now: db.clock.now(), requestId: "r1")
            #expect(first.justCompleted == [])
            #expect(first.goals.first { $0.goal.id == steps.id }?.progress == 6_000)
            #expect(first.goals.first { $0.goal.id == steps.id }?.completed == false)

            db.clock.advance(by: 3_600)
            let second = try await db.goals.report(
                steps: 5_000, distance: 4_000, user: user, now: db.clock.now(), requestId: "r2")
            #expect(second.justCompleted == [steps.id])
            let mine = try #require(second.goals.first { $0.goal.id == steps.id })
            #expect(mine.completed && mine.progress == 11_000)
            let voucher = try #require(mine.voucher)
            #expect(voucher.reward == "a free coffee" && voucher.redeemedAt == nil)
            #expect(second.goals.first { $0.goal.id == distance.id }?.voucher == nil)

            let third = try await db.goals.report(
                steps: 5_000, distance: 0, user: user, now: db.clock.now(), requestId: "r3")
            #expect(third.justCompleted == [])
            #expect(third.goals.first { $0.goal.id == steps.id }?.voucher?.code == voucher.code)

            let events = try await db.completions(of: steps.id)
            #expect(events.count == 1)
            #expect(events.first?.userId == user.uuidString.lowercased())
            #expect(events.first?.goal == "Walk the campus" && events.first?.reward == "a free coffee")
            #expect(events.first?.voucherCode == voucher.code)

            let nextWeek = try await db.goals.report(
                steps: 20_000, distance: 0, user: user, now: db.clock.now().addingTimeInterval(7 * 86_400),
                requestId: "r4")
            #expect(nextWeek.steps == 20_000 && nextWeek.goals.allSatisfy { $0.goal.id != steps.id })
        }
    }

    @Test("a report retried with the same id counts once, also when the retries race")
    func retriedReport() async throws {
        try await RoutingDatabase.with { db in
            let goal = try await db.goal("steps", target: 3_000)
            let user = UUID()
            let retried = UUID()
            let now = db.clock.now()
            let weeks = try await withThrowingTaskGroup(of: Routing.MyWeek.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        try await db.goals.report(
                            steps: 2_000, distance: 10, reportId: retried, user: user, now: now, requestId: nil)
                    }
                }
                return try await group.reduce(into: [Routing.MyWeek]()) { $0.append($1) }
            }
            #expect(weeks.map(\.steps).max() == 2_000)
            #expect(try await db.goals.myWeek(user: user, week: db.week).steps == 2_000)
            let other = try await db.goals.report(
                steps: 2_000, distance: 10, reportId: UUID(), user: user, now: now, requestId: nil)
            #expect(other.steps == 4_000 && other.justCompleted == [goal.id])
            #expect(
                try await db.goals.report(
                    steps: 2_000, distance: 10, reportId: retried, user: user, now: now, requestId: nil
                ).steps == 4_000)
        }
    }

    @Test("twenty concurrent reports that together cross the target issue exactly one voucher")
    func concurrentReports() async throws {
        try await RoutingDatabase.with { db in
            let goal = try await db.goal("steps", target: 10_000)
            let user = UUID()
            let now = db.clock.now()
            let completed = try await withThrowingTaskGroup(of: [String].self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await db.goals.report(
                            steps: 1_000, distance: 0, user: user, now: now, requestId: "c\(index)"
                        ).justCompleted ?? []
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(completed == [goal.id])
            #expect(try await db.completions(of: goal.id).count == 1)
            #expect(try await db.goals.myWeek(user: user, week: db.week).steps == 20_000)
        }
    }

    @Test("a voucher is verified, then redeemed by exactly one of 16 concurrent rewards managers")
    func redeemOnce() async throws {
        try await RoutingDatabase.with { db in
            let goal = try await db.goal("distance", target: 1_000)
            let user = UUID()
            let week = try await db.goals.report(
                steps: 0, distance: 1_500, user: user, now: db.clock.now(), requestId: nil)
            let code = try #require(week.goals.first { $0.goal.id == goal.id }?.voucher?.code)
            #expect(try await db.vouchers.voucher(code: code)?.redeemedAt == nil)

            db.clock.advance(by: 60)
            let now = db.clock.now()
            let outcomes = try await withThrowingTaskGroup(of: VoucherStore.Redemption.self) { group in
                for manager in 0..<16 {
                    group.addTask { try await db.vouchers.redeem(code: code, by: "manager-\(manager)", now: now) }
                }
                return try await group.reduce(into: [VoucherStore.Redemption]()) { $0.append($1) }
            }
            let winners = outcomes.filter { if case .redeemed = $0 { true } else { false } }
            let losers = outcomes.filter { if case .alreadyRedeemed = $0 { true } else { false } }
            #expect(winners.count == 1 && losers.count == 15)
            let verified = try await db.vouchers.voucher(code: code)
            #expect(verified?.redeemedAt == now)
            #expect(try await db.vouchers.redeem(code: code, by: "late", now: now) == .alreadyRedeemed(verified!))
            #expect(try await db.vouchers.redeem(code: VoucherCode.make(), by: "x", now: now) == .unknown)
        }
    }

    @Test("venue goals count distinct venues visited in the week")
    func venueVisits() async throws {
        try await RoutingDatabase.with { db in
            let goal = try await db.goal("venues", target: 2, title: "Explore two venues")
            let user = UUID()
            let first = UUID()
            let second = UUID()
            #expect(try await db.goals.visit(venue: first, user: user, now: db.clock.now(), requestId: nil) == [])
            #expect(try await db.goals.visit(venue: first, user: user, now: db.clock.now(), requestId: nil) == [])
            #expect(try await db.goals.myWeek(user: user, week: db.week).venues == 1)
            #expect(
                try await db.goals.visit(venue: second, user: user, now: db.clock.now(), requestId: nil) == [goal.id])
            let week = try await db.goals.myWeek(user: user, week: db.week)
            #expect(week.venues == 2 && week.goals.first { $0.goal.id == goal.id }?.voucher != nil)
        }
    }

    @Test("an admin edit or delete of a goal leaves issued vouchers valid")
    func goalMaintenance() async throws {
        try await RoutingDatabase.with { db in
            let goal = try await db.goal("steps", target: 100)
            let user = UUID()
            let week = try await db.goals.report(
                steps: 100, distance: 0, user: user, now: db.clock.now(), requestId: nil)
            let code = try #require(week.goals.first?.voucher?.code)
            let id = try #require(UUID(uuidString: goal.id))
            let edited = try await db.goalStore.update(
                id: id, with: .init(title: "Renamed", metric: "steps", target: 500, reward: "tea"), week: db.week,
                now: db.clock.now())
            #expect(edited?.title == "Renamed" && edited?.target == 500)
            #expect(try await db.goalStore.delete(id: id))
            #expect(try await db.goalStore.delete(id: id) == false)
            #expect(
                try await db.goalStore.update(
                    id: id, with: .init(title: "x", metric: "steps", target: 1, reward: "y"), week: db.week,
                    now: db.clock.now()) == nil)
            let voucher = try await db.vouchers.voucher(code: code)
            #expect(voucher?.goal == "Walk the campus" && voucher?.redeemedAt == nil)
        }
    }
}
