/// One change of a drink, as sync orders them: by the time the device made it, then a
/// tombstone before an edit of the same time, then by device id. The order is total, so every
/// device that keeps the greatest version it has seen ends with the same one.
public struct DrinkVersion: Sendable, Hashable, Comparable {
    /// When the change was made, microseconds since the epoch (the device's clock).
    public let modifiedMicros: Int64
    /// True for a delete.
    public let deleted: Bool
    /// The device that made it (`api` for changes made through the drink endpoints).
    public let deviceId: String

    public init(modifiedMicros: Int64, deleted: Bool, deviceId: String) {
        self.modifiedMicros = modifiedMicros
        self.deleted = deleted
        self.deviceId = deviceId
    }

    public static func < (lhs: DrinkVersion, rhs: DrinkVersion) -> Bool {
        if lhs.modifiedMicros != rhs.modifiedMicros { return lhs.modifiedMicros < rhs.modifiedMicros }
        if lhs.deleted != rhs.deleted { return !lhs.deleted }
        return lhs.deviceId.utf8.lexicographicallyPrecedes(rhs.deviceId.utf8)
    }
}
