import Contract
import Foundation
import HydrationContract

/// What makes a drink acceptable: a UUID, a known category, a volume over 0 and at most
/// 5 litres (required for `custom`), a time not before 2000 nor more than 24 hours ahead.
public enum DrinkRules {
    /// 2000-01-01T00:00:00Z in microseconds.
    public static let earliestMicros: Int64 = 946_684_800_000_000
    /// How far ahead of the server's clock a drink may be.
    public static let leewayMicros: Int64 = 86_400_000_000
    /// Longest device id.
    public static let maxDeviceIdLength = 100

    /// A drink's UUID, or `invalid_argument` naming `field`.
    public static func uuid(_ text: String, field: String = "uuid") throws(ServiceError) -> UUID {
        guard let uuid = UUID(uuidString: text) else {
            throw ServiceError.invalidArgument("\(field) must be a UUID", field: field)
        }
        return uuid
    }

    /// A known category, or `invalid_argument` naming `field`.
    public static func category(_ text: String, field: String = "category") throws(ServiceError)
        -> Hydration.Category
    {
        guard let category = Hydration.Category(rawValue: text) else {
            let known = Hydration.Category.allCases.map(\.rawValue).joined(separator: ", ")
            throw ServiceError.invalidArgument("\(field) must be one of \(known)", field: field)
        }
        return category
    }

    /// The volume of a drink of `category`: the given one, or the category's size.
    public static func volume(
        _ input: Hydration.VolumeInput?, for category: Hydration.Category, field: String = "volume"
    )
        throws(ServiceError) -> DrinkVolume
    {
        if let input { return try DrinkVolume.parse(input, field: field) }
        guard let standard = DrinkVolume.standard(category) else {
            throw ServiceError.invalidArgument("a custom drink needs a volume", field: field)
        }
        return standard
    }

    /// When it was drunk, within the accepted range at `now` (microseconds).
    public static func drankAt(_ text: String, now: Int64, field: String = "drankAt") throws(ServiceError)
        -> LocalMoment
    {
        let moment = try LocalMoment.parse(text, field: field)
        guard moment.micros >= earliestMicros else {
            throw ServiceError.invalidArgument("\(field) must not be before 2000", field: field)
        }
        guard moment.micros <= now + leewayMicros else {
            throw ServiceError.invalidArgument("\(field) must not be more than 24 hours ahead", field: field)
        }
        return moment
    }

    /// A device id: 1 to 100 printable characters.
    public static func deviceId(_ text: String, field: String = "deviceId") throws(ServiceError) -> String {
        guard (1...maxDeviceIdLength).contains(text.unicodeScalars.count),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ServiceError.invalidArgument("\(field) must be 1 to 100 printable characters", field: field)
        }
        return text
    }

    /// A new drink from a draft, logged at `now` through the drink endpoints.
    public static func record(_ draft: Hydration.DrinkDraft, now: Int64) throws(ServiceError) -> DrinkRecord {
        let uuid = try uuid(draft.uuid)
        let category = try category(draft.category)
        let volume = try volume(draft.volume, for: category)
        let drankAt = try drankAt(draft.drankAt, now: now)
        let device = try draft.deviceId.map { (text) throws(ServiceError) in try deviceId(text) }
        return DrinkRecord(
            uuid: uuid, category: category, volume: volume, drankAt: drankAt, deviceId: device,
            version: DrinkVersion(modifiedMicros: now, deleted: false, deviceId: device ?? "api"))
    }

    /// A device's change, made by `deviceId`; `field` prefixes the names in errors
    /// (`changes[3].drankAt`). A tombstone needs only its UUID and time.
    public static func record(_ change: Hydration.Change, by deviceId: String, now: Int64, field: String)
        throws(ServiceError) -> DrinkRecord
    {
        let uuid = try uuid(change.uuid, field: "\(field).uuid")
        let modified = try LocalMoment.parse(change.modifiedAt, field: "\(field).modifiedAt")
        guard modified.micros >= earliestMicros, modified.micros <= now + leewayMicros else {
            throw ServiceError.invalidArgument(
                "\(field).modifiedAt must be after 2000 and not more than 24 hours ahead", field: "\(field).modifiedAt")
        }
        let version = DrinkVersion(modifiedMicros: modified.micros, deleted: change.deleted == true, deviceId: deviceId)
        if change.deleted == true, change.category == nil || change.drankAt == nil {
            return DrinkRecord(
                uuid: uuid, category: .custom, volume: .millilitres(1),
                drankAt: LocalMoment(micros: modified.micros, offsetSeconds: 0), deviceId: deviceId, version: version)
        }
        guard let categoryText = change.category else {
            throw ServiceError.invalidArgument("\(field).category is required", field: "\(field).category")
        }
        guard let drankText = change.drankAt else {
            throw ServiceError.invalidArgument("\(field).drankAt is required", field: "\(field).drankAt")
        }
        let category = try category(categoryText, field: "\(field).category")
        return DrinkRecord(
            uuid: uuid, category: category, volume: try volume(change.volume, for: category, field: "\(field).volume"),
            drankAt: try drankAt(drankText, now: now, field: "\(field).drankAt"), deviceId: deviceId, version: version)
    }
}
