import Contract
import Foundation
import HydrationContract

/// A drink as the server keeps it: its content, and the version (last change) sync compares.
public struct DrinkRecord: Sendable, Equatable {
    public var uuid: UUID
    public var category: Hydration.Category
    public var volume: DrinkVolume
    public var drankAt: LocalMoment
    /// The device that logged it.
    public var deviceId: String?
    public var version: DrinkVersion
    /// The server's change number for this user when it last changed (sync's cursor).
    public var seq: Int64

    public init(
        uuid: UUID, category: Hydration.Category, volume: DrinkVolume, drankAt: LocalMoment, deviceId: String?,
        version: DrinkVersion, seq: Int64 = 0
    ) {
        self.uuid = uuid
        self.category = category
        self.volume = volume
        self.drankAt = drankAt
        self.deviceId = deviceId
        self.version = version
        self.seq = seq
    }

    /// Whether two records say the same about the drink (what idempotent logging compares).
    public func sameContent(as other: DrinkRecord) -> Bool {
        uuid == other.uuid && category == other.category && volume.femtolitres == other.volume.femtolitres
            && drankAt == other.drankAt && deviceId == other.deviceId
    }

    /// As the drink endpoints answer it.
    public var drink: Hydration.Drink {
        Hydration.Drink(
            uuid: uuid.uuidString.lowercased(), category: category, volume: volume.both, drankAt: drankAt.rfc3339,
            localDay: drankAt.localDay.description, deviceId: deviceId,
            modifiedAt: LocalMoment(micros: version.modifiedMicros, offsetSeconds: 0).rfc3339,
            modifiedBy: version.deviceId)
    }

    /// As sync sends it.
    public var change: Hydration.SyncedChange {
        Hydration.SyncedChange(
            uuid: uuid.uuidString.lowercased(), category: category, volume: volume.both, exactVolume: volume.input,
            drankAt: drankAt.rfc3339, localDay: drankAt.localDay.description,
            modifiedAt: LocalMoment(micros: version.modifiedMicros, offsetSeconds: 0).rfc3339,
            modifiedBy: version.deviceId, deleted: version.deleted)
    }
}
