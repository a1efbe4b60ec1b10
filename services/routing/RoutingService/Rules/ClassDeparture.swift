import Foundation

/// When to leave for a class: its start minus the walk's ETA (which already carries the live
/// crowd), and how much time that leaves.
public struct ClassDeparture: Sendable, Equatable {
    /// Start − ETA, to the second (rounded down, so the advice is never late by a fraction).
    public let leaveAt: Date
    /// Seconds to spare when leaving now (start − now − ETA, rounded down); negative when late.
    public let spareSeconds: Int
    public var late: Bool { spareSeconds < 0 }

    /// The advice for a class starting at `start`, a walk of `eta` seconds, at `now`.
    public init(start: Date, eta: Double, now: Date) {
        let leave = (start.timeIntervalSince1970 - eta.rounded(.up)).rounded(.down)
        leaveAt = Date(timeIntervalSince1970: leave)
        spareSeconds = Int((leave - now.timeIntervalSince1970).rounded(.down))
    }

    /// How far ahead the next class is looked for.
    public static let horizon: TimeInterval = 12 * 3600
}
