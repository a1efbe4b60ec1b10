import Contract

extension Hydration {
    /// A user's daily goal and reminders.
    public struct Plan: Codable, Sendable, Equatable {
        /// In `unit`: oz to two decimals, ml whole.
        public var dailyGoal: Double
        public var unit: Unit
        /// 0 to 24, spread evenly between `wake` and `sleep`.
        public var remindersPerDay: Int
        /// `HH:mm`.
        public var wake: String
        public var sleep: String
        /// IANA time zone, e.g. `America/New_York`.
        public var timeZone: String
        public init(dailyGoal: Double, unit: Unit, remindersPerDay: Int, wake: String, sleep: String, timeZone: String)
        {
            self.dailyGoal = dailyGoal
            self.unit = unit
            self.remindersPerDay = remindersPerDay
            self.wake = wake
            self.sleep = sleep
            self.timeZone = timeZone
        }
    }

    /// A plan with what follows from it.
    public struct PlanReply: Codable, Sendable, Equatable {
        public var plan: Plan
        public var goal: Volume
        /// The reminders' local times, `HH:mm`, in order.
        public var reminderTimes: [String]
        /// False when the user never set one (the reply shows the default).
        public var saved: Bool
        public init(plan: Plan, goal: Volume, reminderTimes: [String], saved: Bool) {
            self.plan = plan
            self.goal = goal
            self.reminderTimes = reminderTimes
            self.saved = saved
        }
    }

    /// `get_plan`: the caller's plan, or the default.
    public enum GetPlan: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "get_plan"
        public typealias Request = Empty
        public typealias Reply = PlanReply
    }

    /// `set_plan`: replaces the caller's plan; its reminders are rescheduled at once.
    public enum SetPlan: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "set_plan"
        public typealias Request = Plan
        public typealias Reply = PlanReply
    }

    /// `reminder_text`: what a reminder due at `at` says to `userId` (notify asks when the
    /// reminder fires): how much to drink now to stay on track for the day's goal; `skip` when
    /// the day's goal is met.
    public enum ReminderText: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "reminder_text"
        public struct Request: Codable, Sendable, Equatable {
            public var userId: String
            /// Milliseconds since the epoch.
            public var at: Int64
            public init(userId: String, at: Int64) {
                self.userId = userId
                self.at = at
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            /// True when nothing should be sent (goal met, or no plan).
            public var skip: Bool
            /// E.g. "Time for a glass: 8 oz now keeps you on track for 64 oz".
            public var text: String?
            /// What is left of the day's goal.
            public var remaining: Volume?
            /// What to drink now: the remainder shared over the day's reminders still to come,
            /// rounded up to whole drinks (4 oz).
            public var amount: Volume?
            /// True when the user has no plan with reminders (any more): the schedule can go.
            public var unplanned: Bool?
            public init(
                skip: Bool, text: String?, remaining: Volume?, amount: Volume? = nil, unplanned: Bool? = nil
            ) {
                self.skip = skip
                self.text = text
                self.remaining = remaining
                self.amount = amount
                self.unplanned = unplanned
            }
        }
    }

    /// Event `hydration.plan_changed`: a user's reminder times (empty: none), for notify's
    /// scheduler.
    public struct PlanChanged: Codable, Sendable, Equatable {
        public static let topic = "hydration.plan_changed"
        public var userId: String
        /// `HH:mm`, local to `timeZone`.
        public var timesOfDay: [String]
        public var timeZone: String
        public init(userId: String, timesOfDay: [String], timeZone: String) {
            self.userId = userId
            self.timesOfDay = timesOfDay
            self.timeZone = timeZone
        }
    }
}
