import Contract
import Foundation
import HydrationContract
import HydrationService
import Testing

@Suite("hydration: sync across devices (PostgreSQL)")
struct SyncTests {
    static func change(
        _ uuid: String, _ category: String = "glass", at drankAt: String = "2026-11-23T10:00:00Z",
        modified: String, deleted: Bool? = nil
    ) -> Hydration.Change {
        Hydration.Change(
            uuid: uuid, category: deleted == true ? nil : category, drankAt: deleted == true ? nil : drankAt,
            modifiedAt: modified, deleted: deleted)
    }

    @Test("a phone's offline drinks reach the tablet; a retried batch changes nothing")
    func twoDevices() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            let (a, b) = (UUID().uuidString.lowercased(), UUID().uuidString.lowercased())
            let batch = [
                Self.change(a, modified: "2026-11-23T10:00:05Z"),
                Self.change(b, "bottle", at: "2026-11-23T11:00:00+01:00", modified: "2026-11-23T10:00:06Z"),
            ]
            let phone = try await db.call(
                Hydration.Sync.self, .init(cursor: nil, deviceId: "phone", changes: batch), as: user)
            #expect(phone.applied == 2 && !phone.hasMore)
            let retry = try await db.call(
                Hydration.Sync.self, .init(cursor: phone.cursor, deviceId: "phone", changes: batch), as: user)
            #expect(retry.applied == 0 && retry.changes.isEmpty && retry.cursor == phone.cursor)
            let tablet = try await db.call(
                Hydration.Sync.self, .init(cursor: nil, deviceId: "tablet", changes: []), as: user)
            #expect(Set(tablet.changes.map(\.uuid)) == [a, b])
            #expect(tablet.changes.first { $0.uuid == b }?.volume == Hydration.Volume(ml: 473, oz: 16))
            #expect(tablet.changes.first { $0.uuid == b }?.drankAt == "2026-11-23T11:00:00+01:00")
            #expect(tablet.changes.allSatisfy { $0.modifiedBy == "phone" && !$0.deleted })
            let quiet = try await db.call(
                Hydration.Sync.self, .init(cursor: tablet.cursor, deviceId: "tablet", changes: []), as: user)
            #expect(quiet.changes.isEmpty)
        }
    }

    @Test("deleted on one device, edited offline on the other: both end with the newer change, in either order")
    func deleteAgainstEdit() async throws {
        try await HydrationDatabase.with { db in
            for deleteIsNewer in [true, false] {
                let user = UUID()
                let uuid = UUID().uuidString.lowercased()
                let start = try await db.call(
                    Hydration.Sync.self,
                    .init(
                        cursor: nil, deviceId: "phone", changes: [Self.change(uuid, modified: "2026-11-23T10:00:00Z")]),
                    as: user)
                let tablet = try await db.call(
                    Hydration.Sync.self, .init(cursor: nil, deviceId: "tablet", changes: []), as: user)
                let deletion = Self.change(
                    uuid, modified: deleteIsNewer ? "2026-11-23T12:00:00Z" : "2026-11-23T11:00:00Z", deleted: true)
                let edit = Self.change(
                    uuid, "bottle", modified: deleteIsNewer ? "2026-11-23T11:00:00Z" : "2026-11-23T12:00:00Z")
                // Both offline; the tablet syncs its edit first, then the phone its delete.
                let tabletPush = try await db.call(
                    Hydration.Sync.self, .init(cursor: tablet.cursor, deviceId: "tablet", changes: [edit]), as: user)
                let phonePush = try await db.call(
                    Hydration.Sync.self, .init(cursor: start.cursor, deviceId: "phone", changes: [deletion]), as: user)
                let tabletPull = try await db.call(
                    Hydration.Sync.self, .init(cursor: tabletPush.cursor, deviceId: "tablet", changes: []), as: user)
                if deleteIsNewer {
                    #expect(phonePush.applied == 1 && phonePush.changes.isEmpty)
                    #expect(tabletPull.changes.map(\.deleted) == [true], "the tablet learns of the delete")
                } else {
                    #expect(phonePush.applied == 0)
                    #expect(phonePush.changes.map(\.category) == [.bottle], "the phone gets the edit back")
                    #expect(!phonePush.changes[0].deleted)
                    #expect(tabletPull.changes.isEmpty, "the tablet's edit stands")
                }
                let live = try await db.call(Hydration.ListDrinks.self, .init(), as: user).items
                #expect(live.map(\.category) == (deleteIsNewer ? [] : [.bottle]))
            }
        }
    }

    @Test("a tie in time goes to the tombstone, then to the greater device id")
    func ties() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            let uuid = UUID().uuidString.lowercased()
            let at = "2026-11-23T12:00:00Z"
            _ = try await db.call(
                Hydration.Sync.self,
                .init(cursor: nil, deviceId: "b-tablet", changes: [Self.change(uuid, "glass", modified: at)]),
                as: user)
            let lower = try await db.call(
                Hydration.Sync.self,
                .init(cursor: nil, deviceId: "a-phone", changes: [Self.change(uuid, "drink", modified: at)]),
                as: user)
            #expect(lower.applied == 0)
            let higher = try await db.call(
                Hydration.Sync.self,
                .init(cursor: nil, deviceId: "c-watch", changes: [Self.change(uuid, "bottle", modified: at)]),
                as: user)
            #expect(higher.applied == 1)
            let tombstone = try await db.call(
                Hydration.Sync.self,
                .init(cursor: nil, deviceId: "a-phone", changes: [Self.change(uuid, modified: at, deleted: true)]),
                as: user)
            #expect(tombstone.applied == 1)
            #expect(try await db.call(Hydration.ListDrinks.self, .init(), as: user).items.isEmpty)
        }
    }

    @Test("a first sync pages through 2,500 drinks; batches over 1,000 and bad changes are 400s naming the field")
    func pagingAndLimits() async throws {
        try await HydrationDatabase.with { db in
            let user = UUID()
            var all: [Hydration.Change] = []
            for index in 0..<2_500 {
                let minute = index % 60
                let hour = index / 60 % 24
                let day = 1 + index / 1_440
                all.append(
                    Self.change(
                        UUID().uuidString.lowercased(),
                        at: String(format: "2026-11-%02dT%02d:%02d:00Z", day, hour, minute),
                        modified: "2026-11-23T10:00:00Z"))
            }
            let tooMany = await db.error(
                Hydration.Sync.self, .init(cursor: nil, deviceId: "phone", changes: Array(all.prefix(1_001))), as: user)
            #expect(tooMany?.field == "changes")
            var bad = Array(all.prefix(3))
            bad[1].drankAt = "2026-11-23"
            #expect(
                await db.error(Hydration.Sync.self, .init(cursor: nil, deviceId: "phone", changes: bad), as: user)?
                    .field == "changes[1].drankAt")
            #expect(
                await db.error(Hydration.Sync.self, .init(cursor: "-1", deviceId: "phone", changes: []), as: user)?
                    .field == "cursor")
            #expect(
                await db.error(Hydration.Sync.self, .init(cursor: nil, deviceId: "", changes: []), as: user)?.field
                    == "deviceId")
            var cursor: String?
            for start in stride(from: 0, to: all.count, by: 1_000) {
                let batch = Array(all[start..<min(start + 1_000, all.count)])
                cursor = try await db.call(
                    Hydration.Sync.self, .init(cursor: cursor, deviceId: "phone", changes: batch), as: user
                ).cursor
            }
            var pages: [(Int, Bool)] = []
            var seen = Set<String>()
            var tabletCursor: String?
            repeat {
                let page = try await db.call(
                    Hydration.Sync.self, .init(cursor: tabletCursor, deviceId: "tablet", changes: []), as: user)
                pages.append((page.changes.count, page.hasMore))
                seen.formUnion(page.changes.map(\.uuid))
                tabletCursor = page.cursor
                if !page.hasMore { break }
            } while true
            #expect(pages.map(\.0) == [1_000, 1_000, 500] && pages.map(\.1) == [true, true, false])
            #expect(seen == Set(all.map(\.uuid)))
        }
    }
}
