import Contract
import Foundation
import Logging
import PostgresNIO
import RoutingContract

/// The `routing.venues` table: typo-tolerant search (pg_trgm), kind filter, nearest first.
public struct VenueStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// Least trigram word similarity for a name to match a query.
    public static let minimumSimilarity = 0.3

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    private static let columns = "id, name, kind, building, level, lat, lon, description, history"

    /// Venues matching `query` by name or building (typos tolerated), of `kind`, within `radius` metres of
    /// `near`; best match first, or nearest first when there is no name query (then by name and id,
    /// so the order is total and `offset` pages through it).
    public func search(
        query: String?, kind: String?, near: (lat: Double, lon: Double)?, radius: Double, offset: Int = 0, limit: Int
    ) async throws -> [Routing.Venue] {
        let q = query?.trimmingCharacters(in: .whitespaces).lowercased()
        let text = (q?.isEmpty ?? true) ? nil : q
        let lat = near?.lat
        let lon = near?.lon
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.columns), d FROM (
              SELECT *, CASE WHEN \(lat)::float8 IS NULL THEN NULL ELSE sqrt(
                power((lat - \(lat)::float8) * 111320, 2)
                + power((lon - \(lon)::float8) * 111320 * cos(radians(\(lat)::float8)), 2)) END AS d,
                CASE WHEN \(text)::text IS NULL THEN 0 ELSE
                  greatest(
                    word_similarity(\(text)::text, lower(name || ' ' || coalesce(building, ''))),
                    similarity(\(text)::text, lower(name))) END AS s
              FROM routing.venues
              WHERE (\(kind)::text IS NULL OR kind = \(kind)::text)
            ) v
            WHERE (\(text)::text IS NULL OR s >= \(Self.minimumSimilarity) OR lower(name) LIKE '%' || \(text)::text || '%')
              AND (d IS NULL OR d <= \(radius))
            ORDER BY s DESC, d ASC NULLS LAST, name, id
            OFFSET \(offset) LIMIT \(limit)
            """, logger: logger)
        var result: [Routing.Venue] = []
        for try await row in rows.decode(
            (UUID, String, String, String?, Int, Double, Double, String, String, Double?).self)
        {
            var venue = Self.venue(row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8)
            venue.distance = row.9.map { ($0 * 10).rounded() / 10 }
            result.append(venue)
        }
        return result
    }

    /// Every venue (a campus has hundreds), for the replica's memory.
    public func all() async throws -> [Routing.Venue] {
        let rows = try await client.fetch("SELECT \(unescaped: Self.columns) FROM routing.venues", logger: logger)
        var venues: [Routing.Venue] = []
        for try await row in rows.decode((UUID, String, String, String?, Int, Double, Double, String, String).self) {
            venues.append(Self.venue(row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8))
        }
        return venues
    }

    /// The distance in metres `search` orders by (an equirectangular approximation, exact
    /// enough within a campus).
    public static func distance(from venue: Routing.Venue, to point: (lat: Double, lon: Double)) -> Double {
        let dLat = (venue.lat - point.lat) * 111_320
        let dLon = (venue.lon - point.lon) * 111_320 * cos(point.lat * .pi / 180)
        return (dLat * dLat + dLon * dLon).squareRoot()
    }

    /// One venue.
    public func venue(id: UUID) async throws -> Routing.Venue? {
        let rows = try await client.fetch(
            "SELECT \(unescaped: Self.columns) FROM routing.venues WHERE id = \(id)", logger: logger)
        for try await row in rows.decode((UUID, String, String, String?, Int, Double, Double, String, String).self) {
            return Self.venue(row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8)
        }
        return nil
    }

    /// Moves with every statement that writes the venues, once it commits (`routing.revisions`,
    /// moved by a trigger), whatever time the write was stamped with.
    public func revision() async throws -> String {
        let rows = try await client.fetch(
            "SELECT revision::text FROM routing.revisions WHERE name = 'venues'", logger: logger)
        for try await revision in rows.decode(String.self) { return revision }
        return ""
    }

    /// Creates a venue.
    public func create(_ draft: Routing.VenueDraft, id: UUID, now: Date) async throws -> Routing.Venue {
        try await client.fetch(
            """
            INSERT INTO routing.venues (id, name, kind, building, level, lat, lon, description, history, updated_at)
            VALUES (\(id), \(draft.name), \(draft.kind), \(draft.building), \(draft.level), \(draft.lat), \(draft.lon),
            \(draft.description ?? ""), \(draft.history ?? ""), \(now))
            """, logger: logger)
        return Self.venue(
            id, draft.name, draft.kind, draft.building, draft.level, draft.lat, draft.lon, draft.description ?? "",
            draft.history ?? "")
    }

    /// Replaces a venue; nil when there is none.
    public func update(id: UUID, with draft: Routing.VenueDraft, now: Date) async throws -> Routing.Venue? {
        let rows = try await client.fetch(
            """
            UPDATE routing.venues SET name = \(draft.name), kind = \(draft.kind), building = \(draft.building),
            level = \(draft.level), lat = \(draft.lat), lon = \(draft.lon), description = \(draft.description ?? ""),
            history = \(draft.history ?? ""), updated_at = \(now)
            WHERE id = \(id) RETURNING id
            """, logger: logger)
        for try await _ in rows {
            return Self.venue(
                id, draft.name, draft.kind, draft.building, draft.level, draft.lat, draft.lon,
                draft.description ?? "", draft.history ?? "")
        }
        return nil
    }

    /// Deletes a venue; false when there was none.
    public func delete(id: UUID) async throws -> Bool {
        let rows = try await client.fetch("DELETE FROM routing.venues WHERE id = \(id) RETURNING id", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    static func venue(
        _ id: UUID, _ name: String, _ kind: String, _ building: String?, _ level: Int, _ lat: Double, _ lon: Double,
        _ description: String, _ history: String
    ) -> Routing.Venue {
        Routing.Venue(
            id: id.uuidString.lowercased(), name: name, kind: kind, building: building, level: level, lat: lat,
            lon: lon, description: description, history: history)
    }
}
