import Contract
import Foundation
import RoutingContract
import RoutingService
import Testing

@Suite("routing: goals, vouchers and redemption (PostgreSQL)")
struct GoalTests {
    @Test("weeks start on Monday 00:00 UTC; a day names its week")
    func weeks() {
        // 2026-11-19 is a Thursday; its week starts Monday 2026-11-16.
        #expect(CampusWeek(containing: Date(timeIntervalSince1970: 1_795_089_600)).start == "2026-11-16")
        #expect(CampusWeek(day: "2026-11-22")?.start == "2026-11-16")
        #expect(CampusWeek(day: "2026-11-23")?.start == "2026-11-23")
        #expect(CampusWeek(day: "2027-01-01")?.start == "2026-12-28")
        #expect(CampusWeek(day: "2026-02-30") == nil)
        #expect(CampusWeek(day: "next week") == nil)
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
            #expect(try await db.goals.voucher(code: code)?.redeemedAt == nil)

            db.clock.advance(by: 60)
            let now = db.clock.now()
            let outcomes = try await withThrowingTaskGroup(of: GoalBook.Redemption.self) { group in
                for manager in 0..<16 {
                    group.addTask { try await db.goals.redeem(code: code, by: "manager-\(manager)", now: now) }
                }
                return try await group.reduce(into: [GoalBook.Redemption]()) { $0.append($1) }
            }
            let winners = outcomes.filter { if case .redeemed = $0 { true } else { false } }
            let losers = outcomes.filter { if case .alreadyRedeemed = $0 { true } else { false } }
            #expect(winners.count == 1 && losers.count == 15)
            let verified = try await db.goals.voucher(code: code)
            #expect(verified?.redeemedAt == now)
            #expect(try await db.goals.redeem(code: code, by: "late", now: now) == .alreadyRedeemed(verified!))
            #expect(try await db.goals.redeem(code: VoucherCode.make(), by: "x", now: now) == .unknown)
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
            let edited = try await db.goals.update(
                id: id, with: .init(title: "Renamed", metric: "steps", target: 500, reward: "tea"), week: db.week,
                now: db.clock.now())
            #expect(edited?.title == "Renamed" && edited?.target == 500)
            #expect(try await db.goals.delete(id: id))
            #expect(try await db.goals.delete(id: id) == false)
            #expect(
                try await db.goals.update(
                    id: id, with: .init(title: "x", metric: "steps", target: 1, reward: "y"), week: db.week,
                    now: db.clock.now()) == nil)
            let voucher = try await db.goals.voucher(code: code)
            #expect(voucher?.goal == "Walk the campus" && voucher?.redeemedAt == nil)
        }
    }
}
