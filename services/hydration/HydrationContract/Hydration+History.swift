import Contract

extension Hydration {
    /// One of the user's days.
    public struct Day: Codable, Sendable, Equatable {
        /// `YYYY-MM-DD`.
        public var date: String
        public var total: Volume
        public var goal: Volume
        /// Share of the goal, in whole percent (may pass 100).
        public var percent: Int
        public var drinks: Int
        public var goalMet: Bool
        public init(date: String, total: Volume, goal: Volume, percent: Int, drinks: Int, goalMet: Bool) {
            self.date = date
            self.total = total
            self.goal = goal
            self.percent = percent
            self.drinks = drinks
            self.goalMet = goalMet
        }
    }

    /// A run of consecutive days with the goal met.
    public struct Streak: Codable, Sendable, Equatable {
        public var from: String
        public var to: String
        public var days: Int
        public init(from: String, to: String, days: Int) {
            self.from = from
            self.to = to
            self.days = days
        }
    }

    /// `history`: per local day from `from` to `to` (inclusive, at most ``maxDays``).
    public enum History: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "history"
        public static let maxDays = 366
        public struct Request: Codable, Sendable, Equatable {
            /// `YYYY-MM-DD`.
            public var from: String
            public var to: String
            public init(from: String, to: String) {
                self.from = from
                self.to = to
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            /// Every day of the range, oldest first.
            public var days: [Day]
            /// Runs of days with the goal met, oldest first.
            public var streaks: [Streak]
            /// The longest of them, in days.
            public var longestStreak: Int
            /// The run that ends on the range's last day (or the day before, when it is still open).
            public var currentStreak: Int
            public init(days: [Day], streaks: [Streak], longestStreak: Int, currentStreak: Int) {
                self.days = days
                self.streaks = streaks
                self.longestStreak = longestStreak
                self.currentStreak = currentStreak
            }
        }
    }
}
