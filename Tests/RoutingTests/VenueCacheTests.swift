import Foundation
import RoutingContract
import Testing

@testable import RoutingService

/// The routing replica's venue cache against the real PostgreSQL: kept after the first read,
/// dropped on its own writes at once and on other replicas' writes at the next catch-up.
@Suite("routing: venue cache")
struct VenueCacheTests {
    static func draft(_ name: String, lat: Double = -25.7545) -> Routing.VenueDraft {
        .init(name: name, kind: "landmark", level: 0, lat: lat, lon: 28.2314)
    }

    @Test("a venue read once is served from memory until a write: this replica's at once, another's at catch-up")
    func keptUntilWritten() async throws {
        try await RoutingDatabase.with { db in
            let cache = VenueCache(store: db.venues)
            try await cache.catchUp()
            let id = UUID()
            _ = try await db.venues.create(Self.draft("Cache test \(id)"), id: id, now: db.clock.now())
            #expect(try await cache.venue(id: id)?.name == "Cache test \(id)")

            // Another replica renames it: this one still answers from memory, until it catches up.
            db.clock.advance(by: 1)
            _ = try await db.venues.update(id: id, with: Self.draft("Renamed \(id)"), now: db.clock.now())
            #expect(try await cache.venue(id: id)?.name == "Cache test \(id)")
            try await cache.catchUp()
            #expect(try await cache.venue(id: id)?.name == "Renamed \(id)")

            // This replica's own write is seen at once.
            db.clock.advance(by: 1)
            _ = try await db.venues.update(id: id, with: Self.draft("Moved \(id)", lat: -25.75), now: db.clock.now())
            cache.forget(id)
            #expect(try await cache.venue(id: id)?.lat == -25.75)

            // A deleted venue is gone for this replica at once, and a missing one is never kept.
            _ = try await db.venues.delete(id: id)
            cache.forget(id)
            #expect(try await cache.venue(id: id) == nil)
            #expect(try await cache.venue(id: UUID()) == nil)
        }
    }

    @Test("a catch-up that finds nothing changed keeps what is held; forgetAll drops everything")
    func catchUpKeeps() async throws {
        try await RoutingDatabase.with { db in
            let cache = VenueCache(store: db.venues)
            let id = UUID()
            _ = try await db.venues.create(Self.draft("Kept \(id)"), id: id, now: db.clock.now())
            try await cache.catchUp()
            _ = try await cache.venue(id: id)
            let held = cache.count
            #expect(held >= 1)
            try await cache.catchUp()
            // Other tests may add venues meanwhile, so the cache may have been dropped; if it was
            // not, it still holds the venue.
            #expect(cache.count == 0 || cache.count == held)
            _ = try await cache.venue(id: id)
            cache.forgetAll()
            #expect(cache.count == 0)
        }
    }
}
