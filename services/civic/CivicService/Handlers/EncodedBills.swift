import Foundation
import Synchronization

/// Bill detail replies kept encoded, by bill id, each with the version it was made at (see
/// ``BillStore/detailVersion(_:)``): a read whose bill has the same version answers the kept
/// bytes, with no decoding of the stored detail, no lookup of the people it links and no
/// encoding. At most `capacityBytes` are kept; past that, entries are dropped at random.
public final class EncodedBills: Sendable {
    struct Entry: Sendable {
        let version: String
        let json: [UInt8]
    }

    /// 64 MiB: some thousands of bills with their timelines and votes.
    public static let defaultCapacityBytes = 64 << 20

    let capacityBytes: Int
    private let state = Mutex<(entries: [UUID: Entry], bytes: Int)>(([:], 0))

    public init(capacityBytes: Int = EncodedBills.defaultCapacityBytes) { self.capacityBytes = capacityBytes }

    /// The reply kept for `id` at `version`, or nil.
    func json(_ id: UUID, version: String) -> [UInt8]? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.version == version else { return nil }
            return entry.json
        }
    }

    /// Keeps `json` as `id`'s reply at `version`, replacing an older one.
    func keep(_ id: UUID, version: String, json: [UInt8]) {
        guard json.count <= capacityBytes else { return }
        state.withLock { state in
            if let old = state.entries.updateValue(Entry(version: version, json: json), forKey: id) {
                state.bytes -= old.json.count
            }
            state.bytes += json.count
            while state.bytes > capacityBytes, let victim = state.entries.keys.randomElement(), victim != id {
                state.bytes -= state.entries.removeValue(forKey: victim)?.json.count ?? 0
            }
        }
    }

    /// How many replies are kept.
    var count: Int { state.withLock { $0.entries.count } }
}
