import Contract
import Foundation

extension Routing {
    /// What a weekly goal counts: `steps`, `distance` (metres), `venues` (distinct venues visited)
    /// or `lectures_attended` (class occurrences attended, see `AttendanceWindow`).
    public static let goalMetrics = ["steps", "distance", "venues", "lectures_attended"]

    /// A weekly goal an admin set: reach `target` of `metric` in the week starting `weekStart`.
    public struct Goal: Codable, Sendable, Equatable {
        public var id: String
        public var title: String
        public var metric: String
        public var target: Int64
        /// The Monday (UTC) the week starts, `YYYY-MM-DD`.
        public var weekStart: String
        /// What the voucher is good for, e.g. "a free coffee at the Student Centre".
        public var reward: String
        public init(id: String, title: String, metric: String, target: Int64, weekStart: String, reward: String) {
            self.id = id
            self.title = title
            self.metric = metric
            self.target = target
            self.weekStart = weekStart
            self.reward = reward
        }
    }

    /// A goal as an admin writes it; `weekStart` defaults to the current week.
    public struct GoalDraft: Codable, Sendable, Equatable {
        public var title: String
        public var metric: String
        public var target: Int64
        public var weekStart: String?
        public var reward: String
        public init(title: String, metric: String, target: Int64, weekStart: String? = nil, reward: String) {
            self.title = title
            self.metric = metric
            self.target = target
            self.weekStart = weekStart
            self.reward = reward
        }
    }

    /// `create_goal` (admin).
    public enum CreateGoal: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "create_goal"
        public typealias Request = GoalDraft
        public typealias Reply = Goal
    }

    /// A goal id with its new contents: `id` beside the draft's members in one object.
    public typealias GoalUpdate = Identified<GoalDraft>

    /// `update_goal` (admin); vouchers already issued stay valid.
    public enum UpdateGoal: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "update_goal"
        public typealias Request = GoalUpdate
        public typealias Reply = Goal
    }

    /// `delete_goal` (admin); vouchers already issued stay valid.
    public enum DeleteGoal: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "delete_goal"
        public typealias Request = ByID
        public typealias Reply = Empty
    }

    /// A reward voucher, issued once per user and completed goal, redeemed at most once.
    public struct Voucher: Codable, Sendable, Equatable {
        public var code: String
        public var goalId: String
        /// The goal's title when the voucher was issued.
        public var goal: String
        public var reward: String
        public var issuedAt: Date
        /// When a rewards manager redeemed it; nil while it is still good.
        public var redeemedAt: Date?
        public init(code: String, goalId: String, goal: String, reward: String, issuedAt: Date, redeemedAt: Date?) {
            self.code = code
            self.goalId = goalId
            self.goal = goal
            self.reward = reward
            self.issuedAt = issuedAt
            self.redeemedAt = redeemedAt
        }
    }

    /// A goal with the caller's progress on it.
    public struct GoalProgress: Codable, Sendable, Equatable {
        public var goal: Goal
        public var progress: Int64
        public var completed: Bool
        /// The voucher the completion earned.
        public var voucher: Voucher?
        public init(goal: Goal, progress: Int64, completed: Bool, voucher: Voucher?) {
            self.goal = goal
            self.progress = progress
            self.completed = completed
            self.voucher = voucher
        }
    }

    /// The caller's week: totals and the goals with progress.
    public struct MyWeek: Codable, Sendable, Equatable {
        /// The week's Monday, `YYYY-MM-DD`.
        public var weekStart: String
        /// When the week begins and ends: Monday 00:00 to the next Monday 00:00 in the campus's
        /// time zone (167 or 169 hours across a daylight saving change).
        public var weekStartsAt: Date
        public var weekEndsAt: Date
        public var steps: Int64
        /// Metres.
        public var distance: Int64
        /// Distinct venues visited this week.
        public var venues: Int64
        /// Class occurrences attended this week.
        public var lecturesAttended: Int64
        public var goals: [GoalProgress]
        /// Goals this very request completed (activity reports only).
        public var justCompleted: [String]?
        public init(
            weekStart: String, weekStartsAt: Date, weekEndsAt: Date, steps: Int64, distance: Int64, venues: Int64,
            lecturesAttended: Int64 = 0, goals: [GoalProgress], justCompleted: [String]? = nil
        ) {
            self.weekStart = weekStart
            self.weekStartsAt = weekStartsAt
            self.weekEndsAt = weekEndsAt
            self.steps = steps
            self.distance = distance
            self.venues = venues
            self.lecturesAttended = lecturesAttended
            self.goals = goals
            self.justCompleted = justCompleted
        }
    }

    /// `my_goals`: the caller's goals of a week (default: this week).
    public enum MyGoals: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "my_goals"
        public struct Request: Codable, Sendable, Equatable {
            /// Any date of the week, `YYYY-MM-DD`.
            public var week: String?
            public init(week: String? = nil) { self.week = week }
        }
        public typealias Reply = MyWeek
    }

    /// `report_activity`: steps and metres the phone counted since its last report; completing a
    /// goal issues its voucher and publishes `routing.goal_completed`.
    public enum ReportActivity: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "report_activity"
        public struct Request: Codable, Sendable, Equatable {
            public var steps: Int64
            /// Metres.
            public var distance: Int64
            /// A UUID the phone picks per report; a report sent again with the same id counts once.
            public var reportId: String?
            public init(steps: Int64, distance: Int64, reportId: String? = nil) {
                self.steps = steps
                self.distance = distance
                self.reportId = reportId
            }
        }
        public typealias Reply = MyWeek
    }

    /// A voucher code in a request.
    public struct ByCode: Codable, Sendable, Equatable {
        public var code: String
        public init(code: String) { self.code = code }
    }

    /// `verify_voucher` (rewards_manager): what a code is worth and whether it was used.
    public enum VerifyVoucher: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "verify_voucher"
        public typealias Request = ByCode
        public typealias Reply = Voucher
    }

    /// `redeem_voucher` (rewards_manager): exactly once; a second redemption is `conflict`.
    public enum RedeemVoucher: ServiceOperation {
        public static let service = ServiceName.routing
        public static let name = "redeem_voucher"
        public typealias Request = ByCode
        public typealias Reply = Voucher
    }
}
