import Contract

extension Hydration {
    /// One change to one drink, as devices and the server exchange them.
    public struct Change: Codable, Sendable, Equatable {
        public var uuid: String
        /// Absent on a tombstone.
        public var category: String?
        public var volume: VolumeInput?
        /// RFC 3339 with offset; absent on a tombstone.
        public var drankAt: String?
        /// When the device made the change (RFC 3339): the newest change of a drink wins.
        public var modifiedAt: String
        /// True for a delete (a tombstone).
        public var deleted: Bool?
        public init(
            uuid: String, category: String?, volume: VolumeInput? = nil, drankAt: String?, modifiedAt: String,
            deleted: Bool? = nil
        ) {
            self.uuid = uuid
            self.category = category
            self.volume = volume
            self.drankAt = drankAt
            self.modifiedAt = modifiedAt
            self.deleted = deleted
        }
    }

    /// A change as the server sends it back: the drink's winning version.
    public struct SyncedChange: Codable, Sendable, Equatable {
        public var uuid: String
        public var category: Category
        public var volume: Volume
        /// The exact volume and its unit, so a device can store it as the server does.
        public var exactVolume: VolumeInput
        public var drankAt: String
        public var localDay: String
        public var modifiedAt: String
        /// The device whose change this is.
        public var modifiedBy: String
        public var deleted: Bool
        public init(
            uuid: String, category: Category, volume: Volume, exactVolume: VolumeInput, drankAt: String,
            localDay: String, modifiedAt: String, modifiedBy: String, deleted: Bool
        ) {
            self.uuid = uuid
            self.category = category
            self.volume = volume
            self.exactVolume = exactVolume
            self.drankAt = drankAt
            self.localDay = localDay
            self.modifiedAt = modifiedAt
            self.modifiedBy = modifiedBy
            self.deleted = deleted
        }
    }

    /// `sync`: a device's batch of offline changes in, what other devices changed since its
    /// cursor out. A retried batch changes nothing.
    public enum Sync: ServiceOperation {
        public static let service = ServiceName.hydration
        public static let name = "sync"
        /// Most changes a batch may carry.
        public static let maxChanges = 1_000
        /// Changes a reply carries at most when the request names no limit, and the most it may name.
        public static let defaultLimit = 1_000
        public static let maxLimit = 5_000
        public struct Request: Codable, Sendable, Equatable {
            /// The previous reply's cursor; nil on a device's first sync.
            public var cursor: String?
            public var deviceId: String
            public var changes: [Change]
            public var limit: Int?
            public init(cursor: String?, deviceId: String, changes: [Change], limit: Int? = nil) {
                self.cursor = cursor
                self.deviceId = deviceId
                self.changes = changes
                self.limit = limit
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var changes: [SyncedChange]
            /// Where the next sync starts.
            public var cursor: String
            /// True when more changes wait: sync again at once with `cursor`.
            public var hasMore: Bool
            /// How many of the batch's changes won (the others lost to newer ones, or were repeats).
            public var applied: Int
            public init(changes: [SyncedChange], cursor: String, hasMore: Bool, applied: Int) {
                self.changes = changes
                self.cursor = cursor
                self.hasMore = hasMore
                self.applied = applied
            }
        }
    }
}
