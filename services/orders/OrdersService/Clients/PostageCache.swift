import Synchronization

/// Printing's postage answers, kept for a while so that quotes and orders do not each ask printing
/// (two bus round trips: `mmi.service`, then `postage_rates`). Keyed by card size and the
/// destination countries asked about; an entry is good until its expiry, and the map is emptied
/// when it reaches ``capacity`` keys (there are few combinations in practice). Instants are
/// passed in, so a test moves time by hand.
final class PostageCache: Sendable {
    struct Entry: Sendable {
        let tariff: PostageTariff
        let expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// How long a printing answer is used.
    let ttl: Duration
    /// How long "printing is absent, use the built-in tariff" is believed (shorter, so that a
    /// printing worker that registers is asked soon).
    let absentTTL: Duration
    /// The most keys kept.
    let capacity: Int

    init(ttl: Duration, absentTTL: Duration = .seconds(5), capacity: Int = 4096) {
        self.ttl = ttl
        self.absentTTL = min(ttl, absentTTL)
        self.capacity = capacity
    }

    /// The key of a question: the size and the sorted countries.
    static func key(size: String, countries: [String]) -> String {
        size + ":" + countries.sorted().joined(separator: ",")
    }

    /// The cached tariff for `key` while it is fresh at `now`.
    func lookup(_ key: String, now: ContinuousClock.Instant) -> PostageTariff? {
        guard ttl > .zero else { return nil }
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard now < entry.expires else {
                entries[key] = nil
                return nil
            }
            return entry.tariff
        }
    }

    /// Keeps `tariff` for `key` from `now` (for ``absentTTL`` when it is the built-in stand-in).
    func store(_ tariff: PostageTariff, for key: String, absent: Bool, now: ContinuousClock.Instant) {
        guard ttl > .zero else { return }
        let entry = Entry(tariff: tariff, expires: now + (absent ? absentTTL : ttl))
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }

    /// The number of keys held (tests).
    var count: Int { entries.withLock { $0.count } }
}
