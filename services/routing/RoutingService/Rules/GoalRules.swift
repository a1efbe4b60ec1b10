import Contract
import Foundation
import RoutingContract

/// What a weekly goal, an activity report and a voucher code sent in must be.
public enum GoalRules {
    /// Most steps, and metres, one activity report may add.
    public static let maximumStepsPerReport: Int64 = 200_000
    public static let maximumMetresPerReport: Int64 = 200_000
    /// How close (m, same floor) a located user must be to a venue for it to count as visited.
    public static let visitRadius = 25.0

    /// The week of a goal draft (the one holding `now` when it names none), its fields checked.
    public static func validated(_ draft: Routing.GoalDraft, now: Date, zone: TimeZone) throws(ServiceError)
        -> CampusWeek
    {
        guard !draft.title.trimmingCharacters(in: .whitespaces).isEmpty, draft.title.count <= 200 else {
            throw ServiceError.invalidArgument("title must be 1-200 characters", field: "title")
        }
        guard Routing.goalMetrics.contains(draft.metric) else {
            throw ServiceError.invalidArgument(
                "metric must be steps, distance, venues or lectures_attended", field: "metric")
        }
        guard draft.target > 0, draft.target <= 100_000_000 else {
            throw ServiceError.invalidArgument("target must be 1...100,000,000", field: "target")
        }
        guard !draft.reward.trimmingCharacters(in: .whitespaces).isEmpty, draft.reward.count <= 500 else {
            throw ServiceError.invalidArgument("reward must be 1-500 characters", field: "reward")
        }
        guard let text = draft.weekStart else { return CampusWeek(containing: now, in: zone) }
        guard let week = CampusWeek(day: text, in: zone) else {
            throw ServiceError.invalidArgument("weekStart must be a date, YYYY-MM-DD", field: "weekStart")
        }
        return week
    }

    /// An activity report's steps and metres, within what one report may add.
    public static func checkReport(steps: Int64, distance: Int64) throws(ServiceError) {
        guard (0...maximumStepsPerReport).contains(steps) else {
            throw ServiceError.invalidArgument("steps must be 0...\(maximumStepsPerReport) per report", field: "steps")
        }
        guard (0...maximumMetresPerReport).contains(distance) else {
            throw ServiceError.invalidArgument(
                "distance must be 0...\(maximumMetresPerReport) m per report", field: "distance")
        }
    }

    /// A voucher code as typed, in canonical form; one that cannot be a code is no such voucher.
    public static func voucherCode(_ typed: String) throws(ServiceError) -> String {
        guard let code = VoucherCode.canonical(typed) else { throw ServiceError.notFound("no such voucher") }
        return code
    }
}
