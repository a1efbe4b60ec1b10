import Contract
import Foundation
import HydrationContract
import Logging
import PostgresNIO
import Store

/// The `hydration.drinks` and `hydration.users` tables: drinks with their winning versions and
/// each user's change counter. Every query is scoped to one user.
public struct DrinkStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// What a drink endpoint wrote, for its reply.
    public enum Outcome: Sendable, Equatable {
        /// Stored (a new drink, or a new version of one).
        case stored(DrinkRecord)
        /// The drink was there already, as it is now (the caller compares).
        case existing(DrinkRecord)
        /// No such drink (or it was deleted).
        case missing
    }

    /// Stores a new drink unless the user has one with its UUID (then that one, untouched).
    ///
    /// One statement with no transaction around it: the user's counter stays locked only while
    /// it commits (the hot path of a drink log is this one round trip), and change numbers still
    /// commit in their order. A UUID seen before uses up a change number and writes nothing.
    public func log(_ record: DrinkRecord, for user: UUID) async throws -> Outcome {
        let rows = try await client.fetch(LogStatement(user: user, record: record), logger: logger)
        if let seq = rows.first {
            var stored = record
            stored.seq = seq
            return .stored(stored)
        }
        // The conflicting row is committed by now (the insert waited for it), tombstones included.
        return try await drink(record.uuid, of: user).map(Outcome.existing) ?? .missing
    }

    /// ``log(_:for:)``'s statement, prepared once per connection: the write every logged drink
    /// makes, so PostgreSQL parses and plans it once and each drink sends only its values.
    struct LogStatement: PostgresPreparedStatement {
        static let sql = """
            WITH counter AS (
                INSERT INTO hydration.users (user_id, last_seq) VALUES ($1, 1)
                ON CONFLICT (user_id) DO UPDATE SET last_seq = hydration.users.last_seq + 1
                RETURNING last_seq)
            INSERT INTO hydration.drinks (user_id, uuid, category, amount, unit, drank_at, utc_offset_seconds,
                local_day, device_id, modified_at, deleted, modified_by, seq)
            SELECT $1, $2, $3, $4, $5, 'epoch'::timestamptz + $6 * interval '1 microsecond', $7,
                DATE '1970-01-01' + $8, $9, 'epoch'::timestamptz + $10 * interval '1 microsecond', $11, $12,
                last_seq
            FROM counter
            ON CONFLICT (user_id, uuid) DO NOTHING
            RETURNING seq
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .uuid, .uuid, .text, .int4, .text, .int8, .int4, .int4, .text, .int8, .bool, .text,
        ]
        typealias Row = Int64

        let user: UUID
        let record: DrinkRecord

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 12)
            bindings.append(user)
            bindings.append(record.uuid)
            bindings.append(record.category.rawValue)
            bindings.append(Int32(record.volume.amount))
            bindings.append(record.volume.unit.rawValue)
            bindings.append(record.drankAt.micros)
            bindings.append(Int32(record.drankAt.offsetSeconds))
            bindings.append(Int32(record.drankAt.localDay.daysSinceEpoch))
            bindings.append(record.deviceId ?? "")
            bindings.append(record.version.modifiedMicros)
            bindings.append(record.version.deleted)
            bindings.append(record.version.deviceId)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
    }

    /// Changes a live drink with `change`, as a direct edit at `now` (microseconds): its
    /// version comes after whatever is stored.
    public func edit(
        _ uuid: UUID, of user: UUID, now: Int64, deleting: Bool = false,
        _ change: @Sendable (DrinkRecord) throws -> DrinkRecord
    ) async throws -> Outcome {
        try await client.transaction(logger: logger) { connection in
            let seq = try await reserve(1, for: user, on: connection)
            guard let current = try await find(uuid, of: user, on: connection), !current.version.deleted else {
                return .missing
            }
            var next = try change(current)
            next.version = SyncMerge.directVersion(now: now, after: current.version, deleted: deleting)
            next.seq = seq
            try await write([next], for: user, on: connection)
            return .stored(next)
        }
    }

    /// What a batch did: how many changes won, and the drinks whose stored version beat (or
    /// equalled) the batch's change.
    public struct Applied: Sendable, Equatable {
        public var won: Int
        public var lost: [UUID]
    }

    /// Applies a device's batch through the merge: one transaction, the user's counter locked,
    /// the stored versions of the batch's drinks read at once, the winners written at once.
    public func apply(_ changes: [DrinkRecord], for user: UUID) async throws -> Applied {
        guard !changes.isEmpty else { return Applied(won: 0, lost: []) }
        return try await client.transaction(logger: logger) { connection in
            _ = try await reserve(0, for: user, on: connection)
            let uuids = Array(Set(changes.map(\.uuid)))
            let rows = try await connection.fetch(
                """
                SELECT uuid, (extract(epoch FROM modified_at) * 1000000)::int8, deleted, modified_by
                FROM hydration.drinks WHERE user_id = \(user) AND uuid = ANY(\(uuids))
                """, logger: logger)
            var stored: [UUID: DrinkVersion] = [:]
            for try await (uuid, micros, deleted, device) in rows.decode((UUID, Int64, Bool, String).self) {
                stored[uuid] = DrinkVersion(modifiedMicros: micros, deleted: deleted, deviceId: device)
            }
            var winners = SyncMerge.winners(changes, over: stored)
            let won = Set(winners.map(\.uuid))
            let lost = uuids.filter { !won.contains($0) }
            guard !winners.isEmpty else { return Applied(won: 0, lost: lost) }
            let first = try await reserve(winners.count, for: user, on: connection) - Int64(winners.count) + 1
            for index in winners.indices { winners[index].seq = first + Int64(index) }
            try await write(winners, for: user, on: connection)
            return Applied(won: winners.count, lost: lost)
        }
    }

    /// Some of the user's drinks by UUID, tombstones included.
    public func drinks(_ uuids: [UUID], of user: UUID) async throws -> [DrinkRecord] {
        guard !uuids.isEmpty else { return [] }
        return try await records(
            client.fetch(
                """
                SELECT \(unescaped: Self.columns) FROM hydration.drinks
                WHERE user_id = \(user) AND uuid = ANY(\(uuids)) ORDER BY seq
                """, logger: logger))
    }

    /// The user's changes after change number `after`, in order, at most `limit`.
    public func changes(of user: UUID, after: Int64, limit: Int) async throws -> [DrinkRecord] {
        try await records(
            client.fetch(
                """
                SELECT \(unescaped: Self.columns) FROM hydration.drinks
                WHERE user_id = \(user) AND seq > \(after) ORDER BY seq LIMIT \(limit)
                """, logger: logger))
    }

    /// The user's live drinks drunk in `[from, to)` (microseconds), newest first, after the
    /// keyset position `before` (drunk at, uuid), at most `limit`.
    public func list(
        of user: UUID, from: Int64?, to: Int64?, before: (micros: Int64, id: UUID)?, limit: Int
    ) async throws -> [DrinkRecord] {
        try await records(
            client.fetch(
                """
                SELECT \(unescaped: Self.columns) FROM hydration.drinks
                WHERE user_id = \(user) AND NOT deleted
                  AND (\(from)::int8 IS NULL OR drank_at >= ('epoch'::timestamptz + \(from)::int8 * interval '1 microsecond'))
                  AND (\(to)::int8 IS NULL OR drank_at < ('epoch'::timestamptz + \(to)::int8 * interval '1 microsecond'))
                  AND (\(before?.micros)::int8 IS NULL
                       OR (drank_at, uuid) < ('epoch'::timestamptz + \(before?.micros)::int8 * interval '1 microsecond', \(before?.id)::uuid))
                ORDER BY drank_at DESC, uuid DESC LIMIT \(limit)
                """, logger: logger))
    }

    /// One of the user's drinks, tombstone or not.
    public func drink(_ uuid: UUID, of user: UUID) async throws -> DrinkRecord? {
        try await records(client.fetch(Self.one(uuid, of: user), logger: logger)).first
    }

    /// Per local day from `from` to `to` (inclusive): the total (femtolitres) and count of live drinks.
    public func totals(of user: UUID, from: LocalDay, to: LocalDay) async throws -> [LocalDay: DailyProgress.Total] {
        let rows = try await client.fetch(
            """
            SELECT (local_day - DATE '1970-01-01')::int4,
                   sum(amount::int8 * CASE unit WHEN 'ml' THEN \(DrinkVolume.femtolitresPerMillilitre)::int8
                                                ELSE \(DrinkVolume.femtolitresPerCentiOunce)::int8 END)::int8,
                   count(*)::int4
            FROM hydration.drinks
            WHERE user_id = \(user) AND NOT deleted
              AND local_day BETWEEN DATE '1970-01-01' + \(from.daysSinceEpoch)::int4
                                AND DATE '1970-01-01' + \(to.daysSinceEpoch)::int4
            GROUP BY local_day
            """, logger: logger)
        var totals: [LocalDay: DailyProgress.Total] = [:]
        for try await (day, femtolitres, count) in rows.decode((Int32, Int64, Int32).self) {
            totals[LocalDay(daysSinceEpoch: Int(day))] = .init(femtolitres: femtolitres, drinks: Int(count))
        }
        return totals
    }

    /// Forgets every drink of `user` (after `auth.account_deleted`).
    public func forget(_ user: UUID, in tx: Transaction) async throws {
        try await tx.connection.fetch("DELETE FROM hydration.drinks WHERE user_id = \(user)", logger: tx.logger)
        try await tx.connection.fetch("DELETE FROM hydration.users WHERE user_id = \(user)", logger: tx.logger)
    }

    // MARK: statements

    static let columns = """
        uuid, category, amount, unit, (extract(epoch FROM drank_at) * 1000000)::int8, utc_offset_seconds, device_id,
        (extract(epoch FROM modified_at) * 1000000)::int8, deleted, modified_by, seq
        """

    /// Reads one of the user's drinks, tombstone or not.
    static func one(_ uuid: UUID, of user: UUID) -> PostgresQuery {
        "SELECT \(unescaped: columns) FROM hydration.drinks WHERE user_id = \(user) AND uuid = \(uuid)"
    }

    /// Takes `count` change numbers for `user` (locking the user's counter until commit) and
    /// returns the last one.
    func reserve(_ count: Int, for user: UUID, on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.fetch(
            """
            INSERT INTO hydration.users (user_id, last_seq) VALUES (\(user), \(Int64(count)))
            ON CONFLICT (user_id) DO UPDATE SET last_seq = hydration.users.last_seq + \(Int64(count))
            RETURNING last_seq
            """, logger: logger)
        for try await seq in rows.decode(Int64.self) { return seq }
        throw ServiceError(.internal, "the change counter returned nothing")
    }

    func find(_ uuid: UUID, of user: UUID, on connection: PostgresConnection) async throws -> DrinkRecord? {
        try await records(connection.fetch(Self.one(uuid, of: user), logger: logger)).first
    }

    /// Inserts or replaces `records` (each with its seq) in one statement. A tombstone keeps the
    /// content the drink had.
    func write(_ records: [DrinkRecord], for user: UUID, on connection: PostgresConnection) async throws {
        try await connection.fetch(
            """
            INSERT INTO hydration.drinks (user_id, uuid, category, amount, unit, drank_at, utc_offset_seconds,
                local_day, device_id, modified_at, deleted, modified_by, seq)
            SELECT \(user), r.uuid, r.category, r.amount, r.unit,
                'epoch'::timestamptz + r.drank_us * interval '1 microsecond', r.offset_s,
                DATE '1970-01-01' + r.day, r.device_id,
                'epoch'::timestamptz + r.modified_us * interval '1 microsecond', r.deleted, r.modified_by, r.seq
            FROM unnest(\(records.map(\.uuid))::uuid[], \(records.map(\.category.rawValue))::text[],
                        \(records.map { Int32($0.volume.amount) })::int4[], \(records.map(\.volume.unit.rawValue))::text[],
                        \(records.map(\.drankAt.micros))::int8[], \(records.map { Int32($0.drankAt.offsetSeconds) })::int4[],
                        \(records.map { Int32($0.drankAt.localDay.daysSinceEpoch) })::int4[],
                        \(records.map { $0.deviceId ?? "" })::text[], \(records.map(\.version.modifiedMicros))::int8[],
                        \(records.map(\.version.deleted))::bool[], \(records.map(\.version.deviceId))::text[],
                        \(records.map(\.seq))::int8[])
                 AS r(uuid, category, amount, unit, drank_us, offset_s, day, device_id, modified_us, deleted,
                      modified_by, seq)
            ON CONFLICT (user_id, uuid) DO UPDATE SET
                category = CASE WHEN excluded.deleted THEN drinks.category ELSE excluded.category END,
                amount = CASE WHEN excluded.deleted THEN drinks.amount ELSE excluded.amount END,
                unit = CASE WHEN excluded.deleted THEN drinks.unit ELSE excluded.unit END,
                drank_at = CASE WHEN excluded.deleted THEN drinks.drank_at ELSE excluded.drank_at END,
                utc_offset_seconds = CASE WHEN excluded.deleted THEN drinks.utc_offset_seconds
                                          ELSE excluded.utc_offset_seconds END,
                local_day = CASE WHEN excluded.deleted THEN drinks.local_day ELSE excluded.local_day END,
                device_id = drinks.device_id,
                modified_at = excluded.modified_at, deleted = excluded.deleted,
                modified_by = excluded.modified_by, seq = excluded.seq
            """, logger: logger)
    }

    func records(_ rows: FetchedRows) async throws -> [DrinkRecord] {
        var records: [DrinkRecord] = []
        for try await (uuid, category, amount, unit, drank, offset, device, modified, deleted, by, seq) in rows.decode(
            (UUID, String, Int32, String, Int64, Int32, String?, Int64, Bool, String, Int64).self)
        {
            records.append(
                DrinkRecord(
                    uuid: uuid, category: Hydration.Category(rawValue: category) ?? .custom,
                    volume: DrinkVolume(amount: Int(amount), unit: Hydration.Unit(rawValue: unit) ?? .ml),
                    drankAt: LocalMoment(micros: drank, offsetSeconds: Int(offset)),
                    deviceId: device.flatMap { $0.isEmpty ? nil : $0 },
                    version: DrinkVersion(modifiedMicros: modified, deleted: deleted, deviceId: by), seq: seq))
        }
        return records
    }
}
