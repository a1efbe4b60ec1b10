import RoutingContract

/// What a user did in a campus week, and how far that takes them towards a goal.
public struct WeekTotals: Sendable, Equatable {
    public var steps: Int64
    public var distance: Int64
    /// Distinct venues visited.
    public var venues: Int64
    /// Classes attended.
    public var lectures: Int64

    public init(steps: Int64, distance: Int64, venues: Int64, lectures: Int64) {
        self.steps = steps
        self.distance = distance
        self.venues = venues
        self.lectures = lectures
    }

    /// Nothing done yet.
    public static let zero = WeekTotals(steps: 0, distance: 0, venues: 0, lectures: 0)

    /// The progress towards `goal`: the total of its metric.
    public func progress(of goal: Routing.Goal) -> Int64 {
        switch goal.metric {
        case "steps": steps
        case "distance": distance
        case "lectures_attended": lectures
        default: venues
        }
    }
}
