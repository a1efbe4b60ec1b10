import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// The `routing` schema's maps, access points and occupancy counts.
public struct MapStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client` (schema `routing`, migrated by the service at start).
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The newest stored map version, if any.
    public func latestVersion() async throws -> Int64? {
        let rows = try await client.fetch("SELECT max(version) FROM routing.maps", logger: logger)
        for try await (version) in rows.decode(Int64?.self) { return version }
        return nil
    }

    /// The newest stored map: version and OSM XML.
    public func latestMap() async throws -> (version: Int64, osm: String)? {
        let rows = try await client.fetch(
            "SELECT version, osm FROM routing.maps ORDER BY version DESC LIMIT 1", logger: logger)
        for try await (version, osm) in rows.decode((Int64, String).self) { return (version, osm) }
        return nil
    }

    /// Stores an imported map with its venues and access points in one transaction; returns
    /// the new version. With `replace`, venues and access points of the map overwrite the
    /// stored ones (an admin re-import); without it, existing rows are kept (first start).
    public func saveImport(
        osm: String, map: CampusMap, importedBy: String?, replace: Bool, now: Date
    ) async throws -> Int64 {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                """
                INSERT INTO routing.maps (osm, nodes, edges, imported_by, imported_at)
                VALUES (\(osm), \(map.graph.nodeCount), \(map.graph.edgeCount), \(importedBy), \(now))
                RETURNING version
                """, logger: logger)
            var version: Int64 = 0
            for try await (value) in rows.decode(Int64.self) { version = value }
            for venue in map.venues {
                let conflict =
                    replace
                    ? """
                    ON CONFLICT (osm_id) DO UPDATE SET name = excluded.name, kind = excluded.kind,
                    building = excluded.building, level = excluded.level, lat = excluded.lat, lon = excluded.lon,
                    description = excluded.description, history = excluded.history, updated_at = excluded.updated_at
                    """ : "ON CONFLICT (osm_id) DO NOTHING"
                try await connection.fetch(
                    """
                    INSERT INTO routing.venues (id, osm_id, name, kind, building, level, lat, lon, description,
                    history, updated_at)
                    VALUES (\(UUID()), \(venue.osmId), \(venue.name), \(venue.kind), \(venue.building), \(venue.level),
                    \(venue.latitude), \(venue.longitude), \(venue.description), \(venue.history), \(now))
                    \(unescaped: conflict)
                    """, logger: logger)
            }
            for point in map.accessPoints {
                try await connection.fetch(
                    """
                    INSERT INTO routing.access_points (bssid, name, lat, lon, level, capacity, updated_at)
                    VALUES (\(point.bssid), \(point.name), \(point.latitude), \(point.longitude), \(point.level),
                    \(point.capacity), \(now))
                    ON CONFLICT (bssid) DO \(unescaped: replace ? "UPDATE SET name = excluded.name, lat = excluded.lat, lon = excluded.lon, level = excluded.level, capacity = excluded.capacity, updated_at = excluded.updated_at" : "NOTHING")
                    """, logger: logger)
            }
            return version
        }
    }

    /// Every registered access point, by BSSID.
    public func accessPoints() async throws -> [AccessPoint] {
        let rows = try await client.fetch(
            "SELECT bssid, name, lat, lon, level, capacity FROM routing.access_points ORDER BY bssid", logger: logger)
        var result: [AccessPoint] = []
        for try await (bssid, name, lat, lon, level, capacity) in rows.decode(
            (String, String?, Double, Double, Int, Int).self)
        {
            result.append(
                AccessPoint(bssid: bssid, name: name, latitude: lat, longitude: lon, level: level, capacity: capacity))
        }
        return result
    }

    /// Moves with every statement that writes the access point registry, once it commits
    /// (`routing.revisions`, moved by a trigger), whatever time the write was stamped with.
    public func accessPointRevision() async throws -> String {
        let rows = try await client.fetch(
            "SELECT revision::text FROM routing.revisions WHERE name = 'access_points'", logger: logger)
        for try await (revision) in rows.decode(String.self) { return revision }
        return ""
    }

    /// Creates or replaces an access point.
    public func putAccessPoint(_ point: AccessPoint, now: Date) async throws {
        try await client.fetch(
            """
            INSERT INTO routing.access_points (bssid, name, lat, lon, level, capacity, updated_at)
            VALUES (\(point.bssid), \(point.name), \(point.latitude), \(point.longitude), \(point.level),
            \(point.capacity), \(now))
            ON CONFLICT (bssid) DO UPDATE SET name = excluded.name, lat = excluded.lat, lon = excluded.lon,
            level = excluded.level, capacity = excluded.capacity, updated_at = excluded.updated_at
            """, logger: logger)
    }

    /// Deletes an access point; false when there was none.
    public func deleteAccessPoint(bssid: String) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM routing.access_points WHERE bssid = \(bssid) RETURNING bssid", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// Records the latest device counts.
    public func recordCounts(_ counts: [(bssid: String, devices: Int)], at now: Date) async throws {
        guard !counts.isEmpty else { return }
        let bssids = counts.map(\.bssid)
        let devices = counts.map(\.devices)
        try await client.fetch(
            """
            INSERT INTO routing.occupancy (bssid, devices, reported_at)
            SELECT b, d, \(now) FROM unnest(\(bssids)::text[], \(devices)::int[]) AS t(b, d)
            ON CONFLICT (bssid) DO UPDATE SET devices = excluded.devices, reported_at = excluded.reported_at
            """, logger: logger)
    }

    /// The latest count of every access point that has reported.
    public func counts() async throws -> [String: DeviceCount] {
        let rows = try await client.fetch("SELECT bssid, devices, reported_at FROM routing.occupancy", logger: logger)
        var result: [String: DeviceCount] = [:]
        for try await (bssid, devices, at) in rows.decode((String, Int, Date).self) {
            result[bssid] = DeviceCount(devices: devices, reportedAt: at)
        }
        return result
    }
}
