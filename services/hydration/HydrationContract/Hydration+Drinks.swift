import Contract

extension Hydration {
    /// One logged drink.
    public struct Drink: Codable, Sendable, Equatable {
        /// The client-made id (lower-case UUID).
        public var uuid: String
        public var category: Category
        public var volume: Volume
        /// When it was drunk, RFC 3339 with the device's UTC offset at that moment.
        public var drankAt: String
        /// The user's day it counts for (`YYYY-MM-DD`, from `drankAt`'s own offset).
        public var localDay: String
        /// The device that logged it, when it said.
        public var deviceId: String?
        /// The last change's time (RFC 3339, UTC) and device: what sync compares.
        public var modifiedAt: String
        public var modifiedBy: String
        public init(
            uuid: String, category: Category, volume: Volume, drankAt: String, localDay: String, deviceId: String?,
            modifiedAt: String, modifiedBy: String
        ) {
            self.uuid = uuid
            self.category = category
            self.volume = volume
            self.drankAt = drankAt
            self.localDay = localDay
            self.deviceId = deviceId
            self.modifiedAt = modifiedAt
            self.modifiedBy = modifiedBy
        }
    }

    /// A drink as the app logs it.
    public struct DrinkDraft: Codable, Sendable, Equatable {
        /// Client-made UUID: the same one again is the same drink.
        public var uuid: String
        public var category: String
        /// Required for `custom`; for the others it overrides the category's size.
        public var volume: VolumeInput?
        /// RFC 3339 with an offset; not before 2000, not more than 24 h ahead.
        public var drankAt: String
        public var deviceId: String?
        public init(
            uuid: String, category: String, volume: VolumeInput? = nil, drankAt: String, deviceId: String? = nil
        ) {
            self.uuid = uuid
            self.category = category
            self.volume = volume
            self.drankAt = drankAt
            self.deviceId = deviceId
        }
    }

    /// `log_drink`: a new drink. The same UUID with the same content answers the first drink
    /// (`created: false`); with other content, `conflict`.
    public enum LogDrink: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "log_drink"
        public typealias Request = DrinkDraft
        /// The drink; `created` when it is new (201), else the one stored first (200).
        public typealias Reply = Outcome<Drink>
    }

    /// `list_drinks`: the caller's drinks drunk in `[from, to)`, newest first, a keyset page at a time.
    public enum ListDrinks: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "list_drinks"
        public static let defaultLimit = 50
        public static let maxLimit = 500
        public struct Request: Codable, Sendable, Equatable {
            /// RFC 3339; drinks at or after it.
            public var from: String?
            /// RFC 3339; drinks before it.
            public var to: String?
            public var limit: Int?
            public var cursor: String?
            public init(from: String? = nil, to: String? = nil, limit: Int? = nil, cursor: String? = nil) {
                self.from = from
                self.to = to
                self.limit = limit
                self.cursor = cursor
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var items: [Drink]
            public var nextCursor: String?
            public init(items: [Drink], nextCursor: String? = nil) {
                self.items = items
                self.nextCursor = nextCursor
            }
        }
    }

    /// What `update_drink` changes: a field left out stays.
    public struct DrinkFix: Codable, Sendable, Equatable {
        public var uuid: String
        public var category: String?
        public var volume: VolumeInput?
        public var drankAt: String?
        public var deviceId: String?
        public init(
            uuid: String, category: String? = nil, volume: VolumeInput? = nil, drankAt: String? = nil,
            deviceId: String? = nil
        ) {
            self.uuid = uuid
            self.category = category
            self.volume = volume
            self.drankAt = drankAt
            self.deviceId = deviceId
        }
    }

    /// `update_drink`: fixes a drink's size or time; `not_found` for one the caller has not
    /// logged or has deleted.
    public enum UpdateDrink: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "update_drink"
        public typealias Request = DrinkFix
        public typealias Reply = Drink
    }

    /// A drink by its UUID, and the device asking.
    public struct DrinkRef: Codable, Sendable, Equatable {
        public var uuid: String
        public var deviceId: String?
        public init(uuid: String, deviceId: String? = nil) {
            self.uuid = uuid
            self.deviceId = deviceId
        }
    }

    /// `delete_drink`: leaves a tombstone that other devices learn of when they sync.
    public enum DeleteDrink: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "delete_drink"
        public typealias Request = DrinkRef
        public typealias Reply = Empty
    }
}
