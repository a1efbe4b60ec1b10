import Foundation
import NotifyContract

/// A user's time zone, quiet hours, locale and opt-outs, as notify applies them.
public struct UserSettings: Sendable, Equatable {
    /// The user's zone (UTC when never set).
    public var timeZone: String = "UTC"
    /// Quiet hours, if any.
    public var quiet: QuietWindow?
    /// `en`, `sv`, or nil for English.
    public var locale: String?
    /// `kind:channel` pairs switched off.
    public var disabled: Set<String> = []

    /// Defaults: UTC, no quiet hours, everything on.
    public init() {}

    /// Whether `channel` is on for `kind`.
    public func allows(kind: Notify.Kind, channel: String) -> Bool {
        !disabled.contains("\(kind.rawValue):\(channel)")
    }

    /// When a non-critical e-mail or push submitted at `instant` may go out.
    public func deliverAfter(_ instant: Date) -> Date {
        guard let quiet, let zone = try? LocalTime(timeZone) else { return instant }
        return quiet.release(instant, in: zone)
    }
}
