import Contract
import Foundation
import Logging
import PostgresNIO
import Store
import PrintingContract

/// Every version of the postage file in `printing.postage_tariffs`; none is changed or deleted.
/// The version in force on a day is the newest one whose validity covers that day.
public struct PostageStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Stores `file` (parsed from `document`) as a new version and returns its id; with
    /// `skipIfKnown`, a document already stored byte for byte is not stored again (nil).
    /// Replicas loading the same file at start are serialized by an advisory lock.
    public func save(
        _ file: PostageFile, document: String, source: String, now: Date, skipIfKnown: Bool = false
    ) async throws -> Int64? {
        let zones = String(decoding: try Wire.makeEncoder().encode(file.zones), as: UTF8.self)
        let prices = String(decoding: try Wire.makeEncoder().encode(file.prices), as: UTF8.self)
        let stamp = ByteBuffer(bytes: file.stamp.bytes)
        return try await client.transaction(logger: logger) { connection in
            if skipIfKnown {
                _ = try await connection.fetch(
                    "SELECT pg_advisory_xact_lock(hashtext('printing.postage_tariffs'))", logger: logger)
                let known = try await connection.fetch(
                    """
                    SELECT count(*) FROM printing.postage_tariffs
                    WHERE sha256 = encode(sha256(convert_to(\(document), 'UTF8')), 'hex')
                    """, logger: logger)
                for try await count in known.decode(Int64.self) where count > 0 { return nil }
            }
            let rows = try await connection.fetch(
                """
                INSERT INTO printing.postage_tariffs (label, carrier, currency, origin, valid_from, valid_to, zones,
                    prices, stamp_media_type, stamp, stamp_width, stamp_height, document, sha256, source, loaded_at)
                VALUES (\(file.label), \(file.carrier), \(file.currency), \(file.origin), \(file.validFrom)::date,
                    \(file.validTo)::date, \(zones)::jsonb, \(prices)::jsonb, \(file.stamp.mediaType), \(stamp),
                    \(file.stamp.width), \(file.stamp.height), \(document),
                    encode(sha256(convert_to(\(document), 'UTF8')), 'hex'), \(source), \(now))
                RETURNING id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { return id }
            throw ServiceError(.internal, "storing a postage file returned no id")
        }
    }

    /// The version in force on `day` (`YYYY-MM-DD`), or nil when none covers it.
    public func active(on day: String) async throws -> Printing.PostageTariff? {
        try await first(
            """
            WHERE valid_from <= \(day)::date AND (valid_to IS NULL OR valid_to >= \(day)::date)
            ORDER BY id DESC LIMIT 1
            """, active: true)
    }

    /// The version with `id`, marked active when it is `activeId`.
    public func version(_ id: Int64, activeId: Int64?) async throws -> Printing.PostageTariff? {
        try await first("WHERE id = \(id)", active: id == activeId)
    }

    /// How many versions were ever stored.
    public func count() async throws -> Int {
        let rows = try await client.fetch("SELECT count(*) FROM printing.postage_tariffs", logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// The stamp image of version `id`: media type and bytes.
    public func stamp(_ id: Int64) async throws -> (mediaType: String, bytes: [UInt8])? {
        let rows = try await client.fetch(
            "SELECT stamp_media_type, stamp FROM printing.postage_tariffs WHERE id = \(id)", logger: logger)
        for try await (type, bytes) in rows.decode((String, ByteBuffer).self) {
            return (type, Array(bytes.readableBytesView))
        }
        return nil
    }

    /// The columns a caller sees, as one JSON object (zones and prices are stored as JSON).
    private struct Row: Decodable {
        var id: Int64
        var label: String
        var carrier: String
        var currency: String
        var origin: String
        var validFrom: String
        var validTo: String?
        var zones: [Printing.PostageZone]
        var prices: [Printing.PostagePrice]
        var stampMediaType: String
        var stampWidth: Int
        var stampHeight: Int
        var sha256: String
    }

    private func first(_ condition: PostgresQuery, active: Bool) async throws -> Printing.PostageTariff? {
        var query = PostgresQuery(
            unsafeSQL: """
                SELECT jsonb_build_object('id', id, 'label', label, 'carrier', carrier, 'currency', currency,
                    'origin', origin, 'validFrom', valid_from::text, 'validTo', valid_to::text, 'zones', zones,
                    'prices', prices, 'stampMediaType', stamp_media_type, 'stampWidth', stamp_width,
                    'stampHeight', stamp_height, 'sha256', sha256)::text, loaded_at
                FROM printing.postage_tariffs 
                """)
        query.sql += condition.sql
        query.binds = condition.binds
        let rows = try await client.fetch(query, logger: logger)
        for try await (json, loadedAt) in rows.decode((String, Date).self) {
            let row = try Wire.makeDecoder().decode(Row.self, from: Data(json.utf8))
            return Printing.PostageTariff(
                id: row.id, label: row.label, carrier: row.carrier, currency: row.currency, origin: row.origin,
                validFrom: row.validFrom, validTo: row.validTo, zones: row.zones, prices: row.prices,
                stampMediaType: row.stampMediaType, stampWidth: row.stampWidth, stampHeight: row.stampHeight,
                sha256: row.sha256, loadedAt: loadedAt, active: active)
        }
        return nil
    }
}
