import Contract
import Foundation
import RoutingContract
import RoutingService
import Store
import Testing

@Suite("routing: campus events and pins (PostgreSQL)")
struct EventAndPinTests {
    @Test("upcoming events: ended ones drop out, soonest first, by kind, by venue and before a time")
    func upcoming() async throws {
        try await RoutingDatabase.with { db in
            let now = db.clock.now()
            let venue = try await db.venues.create(
                .init(
                    name: "Test Field \(UUID().uuidString.prefix(6))", kind: "sport", level: 0, lat: -25.75, lon: 28.23),
                id: UUID(), now: now)
            let venueId = try #require(UUID(uuidString: venue.id))
            func add(_ title: String, _ kind: String, at venue: UUID?, hours: Double, length: Double = 2) async throws
                -> Routing.CampusEvent
            {
                try await db.events.create(
                    .init(
                        title: title, kind: kind, startsAt: now.addingTimeInterval(hours * 3_600),
                        endsAt: now.addingTimeInterval((hours + length) * 3_600)), venue: venue, id: UUID(), now: now)
            }
            let ended = try await add("Yesterday's match", "sport", at: venueId, hours: -26)
            let running = try await add("Derby", "sport", at: venueId, hours: -1)
            let concert = try await add("Choir concert", "cultural", at: nil, hours: 5)
            let final = try await add("Final", "sport", at: venueId, hours: 48)

            let atVenue = try await db.events.upcoming(kind: nil, venue: venueId, now: now, before: nil, limit: 50)
            #expect(atVenue.map(\.id) == [running.id, final.id])
            #expect(atVenue.first?.venueName == venue.name)
            #expect(!atVenue.contains { $0.id == ended.id })
            let sport = try await db.events.upcoming(kind: "sport", venue: nil, now: now, before: nil, limit: 200)
            #expect(sport.contains { $0.id == final.id } && !sport.contains { $0.id == concert.id })
            let soon = try await db.events.upcoming(
                kind: nil, venue: venueId, now: now, before: now.addingTimeInterval(86_400), limit: 50)
            #expect(soon.map(\.id) == [running.id])

            let id = try #require(UUID(uuidString: final.id))
            let moved = try await db.events.update(
                id: id,
                with: .init(
                    title: "Final (moved)", kind: "sport", startsAt: now.addingTimeInterval(3_600),
                    endsAt: now.addingTimeInterval(7_200)), venue: nil, now: now)
            #expect(moved?.venueId == nil && moved?.title == "Final (moved)")
            #expect(try await db.events.delete(id: id))
            #expect(
                try await db.events.update(
                    id: id, with: .init(title: "x", kind: "sport", startsAt: now, endsAt: now), venue: nil, now: now)
                    == nil)
            _ = try await db.venues.delete(id: venueId)
            let orphan = try await db.events.upcoming(kind: "sport", venue: nil, now: now, before: nil, limit: 200)
            #expect(orphan.first { $0.id == running.id }?.venueId == nil, "a deleted venue leaves its events")
        }
    }

    @Test("pins belong to their owner: listed, deleted and capped per owner only")
    func pins() async throws {
        try await RoutingDatabase.with { db in
            let ann = UUID()
            let bob = UUID()
            let first = try #require(
                try await db.pins.save(
                    .init(lat: -25.754, lon: 28.231, level: 2, description: "my bike"), owner: ann, id: UUID(),
                    now: db.clock.now()))
            db.clock.advance(by: 1)
            let second = try #require(
                try await db.pins.save(
                    .init(lat: -25.755, lon: 28.232, description: "quiet desk"), owner: ann, id: UUID(),
                    now: db.clock.now()))
            #expect(try await db.pins.pins(of: ann).map(\.id) == [second.id, first.id])
            let newest = try await db.pins.pins(of: ann, limit: 1)
            #expect(newest.map(\.id) == [second.id])
            let micros = Int64((second.createdAt.timeIntervalSince1970 * 1_000_000).rounded())
            let older = try await db.pins.pins(of: ann, before: (micros, try #require(UUID(uuidString: second.id))))
            #expect(older.map(\.id) == [first.id], "the next page starts after the cursor")
            #expect(try await db.pins.pins(of: ann).last?.level == 2)
            #expect(try await db.pins.pins(of: bob).isEmpty)
            let id = try #require(UUID(uuidString: first.id))
            #expect(try await db.pins.delete(id: id, owner: bob) == false)
            #expect(try await db.pins.pins(of: ann).count == 2)
            #expect(try await db.pins.delete(id: id, owner: ann))
            #expect(try await db.pins.pins(of: ann).map(\.id) == [second.id])
            try await Transactions(db.client, logger: RoutingDatabase.logger).run {
                try await db.pins.forget(ann, in: $0)
            }
            #expect(try await db.pins.pins(of: ann).isEmpty, "a deleted account's pins go")

            for index in 0..<(PinStore.maximumPerUser - 1) {
                _ = try await db.pins.save(
                    .init(lat: 0, lon: 0, description: "pin \(index)"), owner: bob, id: UUID(), now: db.clock.now())
            }
            #expect(
                try await db.pins.save(
                    .init(lat: 0, lon: 0, description: "last"), owner: bob, id: UUID(), now: db.clock.now()) != nil)
            #expect(
                try await db.pins.save(
                    .init(lat: 0, lon: 0, description: "over"), owner: bob, id: UUID(), now: db.clock.now()) == nil)
        }
    }
}
