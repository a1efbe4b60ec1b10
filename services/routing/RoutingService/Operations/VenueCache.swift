import Foundation
import RoutingContract
import Synchronization

/// Venues by id, kept in this replica's memory: NavUP plans most routes between two venues, and
/// reading both from PostgreSQL was most of a route's cost. Venues change only through the admin
/// API (an edit, a delete, a map import), so the cache is dropped:
/// - at once on this replica, for its own writes (``forget(_:)``, ``forgetAll()``);
/// - within `CAMPUS_REFRESH_MS` on every replica, when the campus loader sees the stored venues'
///   revision (their count and newest change) move (``catchUp()``).
///
/// A load that raced a write is not kept (each write moves a generation the load checks), so a
/// replaced venue is never cached after its replacement.
public final class VenueCache: Sendable {
    /// Venues kept at most (a campus has hundreds); past it the cache starts afresh.
    static let capacity = 100_000

    private struct State {
        var venues: [UUID: Routing.Venue] = [:]
        /// The stored venues' revision the cache was checked against last.
        var revision: String?
        /// Moves with every write; a load started before one is not kept.
        var generation = 0
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

    /// Drops one venue (this replica changed or deleted it).
    func forget(_ id: UUID) {
        state.withLock { state in
            state.generation += 1
            state.venues[id] = nil
        }
    }

    /// Drops every venue (this replica imported a map).
    func forgetAll() {
        state.withLock { state in
            state.generation += 1
            state.venues.removeAll()
        }
    }

    /// Drops every venue when the stored ones changed since the last look (a write on any replica).
    public func catchUp() async throws {
        let revision = try await store.revision()
        state.withLock { state in
            guard state.revision != revision else { return }
            state.revision = revision
            state.generation += 1
            state.venues.removeAll()
        }
    }

    /// Venues held now (for tests).
    var count: Int { state.withLock { $0.venues.count } }
}
