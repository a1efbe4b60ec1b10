import Foundation
import Synchronization
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

    @Test("another replica's edit is seen at catch-up whatever time it was stamped with: a clock behind, or the same instant")
    func catchUpWhateverTheStamp() async throws {
        try await RoutingDatabase.with { db in
            let cache = VenueCache(store: db.venues)
            let (ahead, behind) = (UUID(), UUID())
            let now = db.clock.now()
            // A replica whose clock runs a day ahead writes the newest change of all.
            _ = try await db.venues.create(Self.draft("Ahead \(ahead)"), id: ahead, now: now.addingTimeInterval(86_400))
            _ = try await db.venues.create(Self.draft("Behind \(behind)"), id: behind, now: now)
            try await cache.catchUp()
            #expect(try await cache.venue(id: behind)?.name == "Behind \(behind)")

            // Renamed by a replica whose clock reads the same instant as the venue's creation,
            // then by one whose clock is an hour behind: neither is the newest change.
            _ = try await db.venues.update(id: behind, with: Self.draft("Renamed \(behind)"), now: now)
            try await cache.catchUp()
            #expect(try await cache.venue(id: behind)?.name == "Renamed \(behind)")
            _ = try await db.venues.update(
                id: behind, with: Self.draft("Renamed again \(behind)"), now: now.addingTimeInterval(-3_600))
            try await cache.catchUp()
            #expect(try await cache.venue(id: behind)?.name == "Renamed again \(behind)")

            // The access point registry's revision moves the same way.
            let maps = MapStore(client: db.client, logger: RoutingDatabase.logger)
            let hex = Array(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(6))
            let bssid = "02:00:5e:\(String(hex[0...1])):\(String(hex[2...3])):\(String(hex[4...5]))"
            let point = AccessPoint(bssid: bssid, name: "AP", latitude: -25.75, longitude: 28.23, level: 0, capacity: 40)
            try await maps.putAccessPoint(point, now: now)
            let before = try await maps.accessPointRevision()
            var moved = point
            moved.capacity = 80
            try await maps.putAccessPoint(moved, now: now.addingTimeInterval(-3_600))
            #expect(try await maps.accessPointRevision() != before)
            #expect(try await maps.deleteAccessPoint(bssid: bssid))
            _ = try await db.venues.delete(id: ahead)
            _ = try await db.venues.delete(id: behind)
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

    @Test("the venues near a point come from memory in the order the database's search gives them")
    func nearMatchesSearch() async throws {
        try await RoutingDatabase.with { db in
            // A spot of this test's own, far from every other test's venues.
            let origin = (lat: Double.random(in: -80 ... -70), lon: Double.random(in: -170...170))
            let offsets: [(Double, Double, String)] = [
                (0.00005, 0, "b"), (0.0001, 0.0001, "a"), (0, 0.0002, "c"), (0.0001, 0, "d"), (0.0003, 0, "far"),
            ]
            for (dLat, dLon, name) in offsets {
                _ = try await db.venues.create(
                    .init(name: name, kind: "landmark", level: 0, lat: origin.lat + dLat, lon: origin.lon + dLon),
                    id: UUID(), now: db.clock.now())
            }
            let cache = VenueCache(store: db.venues)
            for radius in [5.0, 12.0, 25.0, 50.0] {
                let expected = try await db.venues.search(
                    query: nil, kind: nil, near: origin, radius: radius, limit: 10)
                let found = try await cache.near(origin, radius: radius, limit: 10)
                #expect(found.map(\.id) == expected.map(\.id), "radius \(radius)")
                #expect(found.map(\.distance) == expected.map(\.distance), "radius \(radius)")
            }
            let nearest = try await cache.near(origin, radius: 25, limit: 10)
            #expect(nearest.count == 4)
            #expect(try await cache.near(origin, radius: 25, limit: 2).map(\.id) == nearest.prefix(2).map(\.id))
        }
    }

    @Test("a visit is remembered once stored; the memo starts afresh when full")
    func visitMemo() {
        let memo = VisitMemo()
        let visit = VisitMemo.Visit(user: UUID(), week: "2026-11-23", venue: UUID())
        #expect(!memo.contains(visit))
        memo.insert(visit)
        #expect(memo.contains(visit))
        #expect(!memo.contains(.init(user: visit.user, week: "2026-11-30", venue: visit.venue)))
    }

    @Test("a name search's answer is kept encoded until a write: this replica's at once, another's at catch-up")
    func searchKept() async throws {
        try await RoutingDatabase.with { db in
            let cache = VenueCache(store: db.venues)
            try await cache.catchUp()
            let tag = UUID().uuidString.prefix(8).lowercased()
            _ = try await db.venues.create(Self.draft("Hall \(tag)"), id: UUID(), now: db.clock.now())
            let key = VenueCache.SearchKey(q: "hall \(tag)", kind: nil, limit: 10, radius: nil, cursor: nil)
            let loads = Counter()
            @Sendable func answer() async throws -> String {
                let bytes = try await cache.searchReply(key) {
                    loads.add()
                    let found = try await db.venues.search(
                        query: key.q, kind: nil, near: nil, radius: 100_000, limit: 10)
                    // Other tests' halls may match too: this test's own are the ones it checks.
                    return Array(found.map(\.name).filter { $0.contains(tag) }.sorted().joined(separator: ",").utf8)
                }
                return String(decoding: bytes, as: UTF8.self)
            }
            #expect(try await answer() == "Hall \(tag)")
            #expect(try await answer() == "Hall \(tag)")
            #expect(loads.value == 1, "the second search is answered from memory")
            #expect(cache.searchCount >= 1)

            // Another replica adds a hall: seen at this replica's next catch-up.
            db.clock.advance(by: 1)
            _ = try await db.venues.create(Self.draft("Hall \(tag) annex"), id: UUID(), now: db.clock.now())
            try await cache.catchUp()
            #expect(try await answer() == "Hall \(tag),Hall \(tag) annex")
            #expect(loads.value == 2)

            // This replica's own write is seen at once.
            let third = UUID()
            _ = try await db.venues.create(Self.draft("Hall \(tag) east"), id: third, now: db.clock.now())
            cache.forget(third)
            #expect(try await answer() == "Hall \(tag),Hall \(tag) annex,Hall \(tag) east")
            #expect(loads.value == 3)

            // A load that fails is not kept.
            let other = VenueCache.SearchKey(q: "nothing \(tag)", kind: nil, limit: 10, radius: nil, cursor: nil)
            await #expect(throws: CancellationError.self) {
                _ = try await cache.searchReply(other) { throw CancellationError() }
            }
            #expect(try await cache.searchReply(other) { Array("[]".utf8) } == Array("[]".utf8))
        }
    }
}

/// Counts calls from concurrent code.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
