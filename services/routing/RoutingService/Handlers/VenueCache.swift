import Foundation
import RoutingContract
import Synchronization

/// Venues kept in this replica's memory, by id and (for the venue a Wi-Fi fix is at) all of
/// them: NavUP plans most routes between two venues, and reading both from PostgreSQL was most
/// of a route's cost, as was the venue search each signed-in `locate` made for visit goals. Venues change only through the admin
/// API (an edit, a delete, a map import), so the cache is dropped:
/// - at once on this replica, for its own writes (``forget(_:)``, ``forgetAll()``);
/// - within `CAMPUS_REFRESH_MS` on every replica, when the campus loader sees the stored venues'
///   revision move (``catchUp()``; a counter every write moves, see ``VenueStore/revision()``).
///
/// Name searches without a position (`GET /v1/campus/venues?q=`, a student typing part of a
/// hall's name) are kept too, as their encoded answers (``searchReply(_:load:)``): the same few
/// letters come back all day, and each had cost a trigram query in PostgreSQL. A search near a
/// position is never kept (it would hold people's positions, and rarely repeats).
///
/// A load that raced a write is not kept (each write moves a generation the load checks), so a
/// replaced venue is never cached after its replacement.
public final class VenueCache: Sendable {
    /// Venues kept at most (a campus has hundreds); past it the cache starts afresh.
    static let capacity = 100_000
    /// Bytes of kept search answers at most; past it they start afresh.
    static let searchCapacity = 8 << 20

    /// What a name search without a position is asked: its answer depends on nothing else.
    struct SearchKey: Hashable, Sendable {
        let q: String?
        let kind: String?
        let limit: Int?
        let radius: Double?
        let cursor: String?
    }

    private struct State {
        var venues: [UUID: Routing.Venue] = [:]
        /// Every venue, once something asked for the venues near a point.
        var all: [Routing.Venue]?
        /// The stored venues' revision the cache was checked against last.
        var revision: String?
        /// Name searches' encoded answers, and their bytes in all.
        var searches: [SearchKey: [UInt8]] = [:]
        var searchBytes = 0
        /// Moves with every write; a load started before one is not kept.
        var generation = 0

        mutating func dropAll() {
            generation += 1
            venues.removeAll()
            all = nil
            searches.removeAll()
            searchBytes = 0
        }
    }

    private let store: VenueStore
    private let state = Mutex(State())

    public init(store: VenueStore) {
        self.store = store
    }

    /// The venue with `id`, from memory or from the store; nil when there is none.
    func venue(id: UUID) async throws -> Routing.Venue? {
        let (kept, generation) = state.withLock { ($0.venues[id], $0.generation) }
        if let kept { return kept }
        guard let venue = try await store.venue(id: id) else { return nil }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.venues.count >= Self.capacity { state.venues.removeAll(keepingCapacity: true) }
            state.venues[id] = venue
        }
        return venue
    }

    /// The venues within `radius` metres of `point`, nearest first (then by name and id), at
    /// most `limit`: what `VenueStore.search` answers for a position alone, from memory.
    func near(_ point: (lat: Double, lon: Double), radius: Double, limit: Int) async throws -> [Routing.Venue] {
        let (kept, generation) = state.withLock { ($0.all, $0.generation) }
        let all: [Routing.Venue]
        if let kept {
            all = kept
        } else {
            all = try await store.all()
            state.withLock { state in
                if state.generation == generation { state.all = all }
            }
        }
        var found: [(distance: Double, venue: Routing.Venue)] = []
        for venue in all {
            let distance = VenueStore.distance(from: venue, to: point)
            if distance <= radius { found.append((distance, venue)) }
        }
        found.sort { ($0.distance, $0.venue.name, $0.venue.id) < ($1.distance, $1.venue.name, $1.venue.id) }
        return found.prefix(limit).map { entry in
            var venue = entry.venue
            venue.distance = (entry.distance * 10).rounded() / 10
            return venue
        }
    }

    /// The encoded answer to the name search `key`, from memory or from `load` (which runs the
    /// search and encodes its answer; what it throws is not kept).
    func searchReply(_ key: SearchKey, load: () async throws -> [UInt8]) async throws -> [UInt8] {
        let (kept, generation) = state.withLock { ($0.searches[key], $0.generation) }
        if let kept { return kept }
        let reply = try await load()
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.searchBytes + reply.count > Self.searchCapacity {
                state.searches.removeAll(keepingCapacity: true)
                state.searchBytes = 0
            }
            if state.searches.updateValue(reply, forKey: key) == nil { state.searchBytes += reply.count }
        }
        return reply
    }

    /// Drops one venue, and every kept search (this replica changed or deleted it).
    func forget(_ id: UUID) {
        state.withLock { state in
            state.generation += 1
            state.venues[id] = nil
            state.all = nil
            state.searches.removeAll()
            state.searchBytes = 0
        }
    }

    /// Drops every venue (this replica imported a map).
    func forgetAll() {
        state.withLock { $0.dropAll() }
    }

    /// Drops every venue when the stored ones changed since the last look (a write on any replica).
    public func catchUp() async throws {
        let revision = try await store.revision()
        state.withLock { state in
            guard state.revision != revision else { return }
            state.revision = revision
            state.dropAll()
        }
    }

    /// Venues held now (for tests).
    var count: Int { state.withLock { $0.venues.count } }

    /// Name searches held now (for tests).
    var searchCount: Int { state.withLock { $0.searches.count } }
}
