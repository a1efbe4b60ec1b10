import Foundation

/// The scheduled import a moment belongs to: imports run once per interval, the slots counted
/// from the epoch, so every replica names the same job for the same slot (its dedupe key).
public struct ImportSlot: Sendable, Equatable {
    public let start: Date
    public let intervalSeconds: Int

    public init(containing now: Date, intervalSeconds: Int) {
        precondition(intervalSeconds > 0)
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        start = Date(timeIntervalSince1970: TimeInterval(seconds - seconds % intervalSeconds))
        self.intervalSeconds = intervalSeconds
    }

    /// `import:<interval>:<slot start in seconds>`.
    public var dedupeKey: String { "import:\(intervalSeconds):\(Int(start.timeIntervalSince1970))" }
}
