import Foundation

/// The sync merge: per drink, the greatest ``DrinkVersion`` wins (newest change, a tombstone
/// over an edit of the same moment, then the greater device id). Being the maximum of a total
/// order, it gives the same result whatever order changes arrive in and however often they are
/// repeated, which is what lets every device and the server converge.
public enum SyncMerge {
    /// Whether `incoming` replaces `stored` (nothing stored: it always does). A repeat of the
    /// stored version does not, so a retried batch changes nothing.
    public static func wins(_ incoming: DrinkVersion, over stored: DrinkVersion?) -> Bool {
        guard let stored else { return true }
        return stored < incoming
    }

    /// The records of `changes` that win over `stored`, one per drink (the greatest when a
    /// batch carries several changes of one drink), in the batch's order of first appearance.
    public static func winners(_ changes: [DrinkRecord], over stored: [UUID: DrinkVersion]) -> [DrinkRecord] {
        var best: [UUID: DrinkRecord] = [:]
        var order: [UUID] = []
        for change in changes {
            if let current = best[change.uuid] {
                if current.version < change.version { best[change.uuid] = change }
            } else {
                best[change.uuid] = change
                order.append(change.uuid)
            }
        }
        return order.compactMap { uuid in
            guard let change = best[uuid], wins(change.version, over: stored[uuid]) else { return nil }
            return change
        }
    }

    /// A change made through the drink endpoints (`api`) at `now`: after anything stored, even
    /// when a device's clock ran ahead of the server's, so the direct edit is the newest.
    public static func directVersion(now micros: Int64, after stored: DrinkVersion?, deleted: Bool) -> DrinkVersion {
        DrinkVersion(
            modifiedMicros: max(micros, (stored?.modifiedMicros ?? Int64.min) + 1), deleted: deleted, deviceId: "api")
    }
}
