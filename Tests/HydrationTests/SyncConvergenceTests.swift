import Contract
import Foundation
import HydrationContract
import HydrationService
import ServiceKit
import Testing

/// Property: three devices edit offline and sync in a random order; once each has synced twice
/// more, every device and the server hold the same drinks, and they are what a sequential replay
/// of every change ever made gives (per drink, the greatest version). Seeded, so a failure
/// names the seed that replays it.
@Suite("hydration: sync convergence, random interleavings of 3 devices (PostgreSQL)")
struct SyncConvergenceTests {
    struct Content: Equatable {
        var category: String
        var volume: Hydration.VolumeInput
        var drankAt: String
    }

    struct Entry {
        var version: DrinkVersion
        var content: Content
    }

    /// One device: what it holds, what it has not pushed yet, where its pull stands.
    struct Device {
        let id: String
        let skew: Int64
        /// The device's last change time: its own changes' times strictly increase (a device
        /// rule; two changes of one device at the same moment would be indistinguishable).
        var lastChange: Int64 = 0
        var cursor: String?
        var local: [String: Entry] = [:]
        var outbox: [String: Hydration.Change] = [:]

        var live: [String: Content] { local.filter { !$0.value.version.deleted }.mapValues(\.content) }

        mutating func receive(_ change: Hydration.SyncedChange) throws {
            let version = DrinkVersion(
                modifiedMicros: try LocalMoment.parse(change.modifiedAt, field: "m").micros, deleted: change.deleted,
                deviceId: change.modifiedBy)
            if let current = local[change.uuid], !(current.version < version) { return }
            local[change.uuid] = Entry(
                version: version,
                content: Content(
                    category: change.category.rawValue, volume: change.exactVolume, drankAt: change.drankAt))
        }
    }

    static let base: Int64 = 1_795_392_000_000_000  // 2026-11-23T00:00:00Z

    static func iso(_ micros: Int64) -> String { LocalMoment(micros: micros, offsetSeconds: 0).rfc3339 }

    /// A drink's UUID (version 4) drawn from the seed. Random UUIDs made a seed's run differ
    /// from one test run to the next: the drink a device edits is picked from its sorted list.
    static func uuid(_ random: inout SeededRandom) -> String {
        let high = random.next(), low = random.next()
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> ($0 * 8)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> ($0 * 8)) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString.lowercased()
    }

    /// One random run; returns nothing, records issues.
    static func run(seed: UInt64, db: HydrationDatabase) async throws {
        var random = SeededRandom(seed: seed)
        let user = UUID()
        var devices = [
            Device(id: "phone", skew: 0), Device(id: "tablet", skew: -3_000_000), Device(id: "watch", skew: 2_000_000),
        ]
        var made: [String: [Entry]] = [:]
        var time: Int64 = 0
        let categories = ["drink", "glass", "bottle", "custom"]

        func sync(_ index: Int) async throws {
            var first = true
            while true {
                let changes = first ? Array(devices[index].outbox.values) : []
                let reply = try await db.call(
                    Hydration.Sync.self,
                    .init(cursor: devices[index].cursor, deviceId: devices[index].id, changes: changes, limit: 7),
                    as: user)
                if first { devices[index].outbox = [:] }
                first = false
                for change in reply.changes { try devices[index].receive(change) }
                devices[index].cursor = reply.cursor
                if !reply.hasMore { break }
            }
        }

        for _ in 0..<60 {
            time += Int64(random.next() % 3) * 1_000_000  // whole seconds: devices tie now and then
            let index = Int(random.next() % 3)
            let modified = max(base + time + devices[index].skew, devices[index].lastChange + 1)
            let roll = random.next() % 100
            let known = devices[index].live.keys.sorted()
            if roll < 25 {
                try await sync(index)
                continue
            }
            let uuid: String
            var deleted = false
            if roll < 55 || known.isEmpty {
                uuid = Self.uuid(&random)
            } else {
                uuid = known[Int(random.next() % UInt64(known.count))]
                deleted = roll >= 85
            }
            let category = categories[Int(random.next() % 4)]
            let volume =
                random.next() % 2 == 0
                ? Hydration.VolumeInput(value: Double(100 + random.next() % 900), unit: .ml)
                : Hydration.VolumeInput(value: Double(100 + random.next() % 3_000) / 100, unit: .oz)
            let drankAt = LocalMoment(
                micros: base - Int64(random.next() % 86_400) * 1_000_000,
                offsetSeconds: [0, 3_600, -18_000, 19_800][Int(random.next() % 4)]
            ).rfc3339
            let content =
                deleted
                ? devices[index].local[uuid]!.content : Content(category: category, volume: volume, drankAt: drankAt)
            devices[index].lastChange = modified
            let version = DrinkVersion(modifiedMicros: modified, deleted: deleted, deviceId: devices[index].id)
            devices[index].local[uuid] = Entry(version: version, content: content)
            made[uuid, default: []].append(Entry(version: version, content: content))
            devices[index].outbox[uuid] = Hydration.Change(
                uuid: uuid, category: deleted ? nil : category, volume: deleted ? nil : volume,
                drankAt: deleted ? nil : drankAt, modifiedAt: iso(modified), deleted: deleted ? true : nil)
        }
        for _ in 0..<2 {
            for index in devices.indices { try await sync(index) }
        }

        let replay = made.compactMapValues { entries -> Content? in
            let winner = entries.max { $0.version < $1.version }!
            return winner.version.deleted ? nil : winner.content
        }
        var auditor = Device(id: "auditor", skew: 0)
        var cursor: String?
        repeat {
            let reply = try await db.call(
                Hydration.Sync.self, .init(cursor: cursor, deviceId: "auditor", changes: []), as: user)
            for change in reply.changes { try auditor.receive(change) }
            cursor = reply.hasMore ? reply.cursor : nil
        } while cursor != nil
        func differences(_ live: [String: Content]) -> [String] {
            Set(live.keys).union(replay.keys).filter { live[$0] != replay[$0] }.sorted()
        }
        // Enough drinks made for the run to say something; a run may end with few alive (deletes
        // converge too, and the checks below compare the deleted ones as well).
        #expect(made.count > 5, "seed \(seed): too few drinks to say much")
        #expect(!replay.isEmpty, "seed \(seed): every drink deleted")
        #expect(differences(auditor.live) == [], "seed \(seed): the server differs from the replay")
        for device in devices {
            #expect(differences(device.live) == [], "seed \(seed): \(device.id) differs from the replay")
        }
        let listed = try await db.call(Hydration.ListDrinks.self, .init(limit: 500), as: user).items
        #expect(Set(listed.map(\.uuid)) == Set(replay.keys), "seed \(seed): the drink list differs")
    }

    @Test("40 seeded interleavings converge to the sequential replay")
    func converges() async throws {
        try await HydrationDatabase.with { db in
            for seed in UInt64(1)...40 { try await Self.run(seed: seed, db: db) }
        }
    }
}
