import Contract
import Foundation
import Logging
import PostgresNIO
import RoutingContract
import Store

/// The `routing.events` table: sports and cultural events, listed upcoming.
public struct CampusEventStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    private typealias Row = (UUID, String, String, UUID?, String?, Date, Date, String, [String], [String])

    /// Events not ended at `now`, of `kind`, at `venue`, starting before `before`; soonest first
    /// (ties by id), after the event at `after` (its start in microseconds and its id).
    public func upcoming(
        kind: String?, venue: UUID?, now: Date, before: Date?, after: (micros: Int64, id: UUID)? = nil, limit: Int
    ) async throws -> [Routing.CampusEvent] {
        let rows = try await client.fetch(
            """
            SELECT e.id, e.title, e.kind, e.venue_id, v.name, e.starts_at, e.ends_at, e.description, e.modules, e.faculties
            FROM routing.events e LEFT JOIN routing.venues v ON v.id = e.venue_id
            WHERE e.ends_at >= \(now)
              AND (\(kind)::text IS NULL OR e.kind = \(kind)::text)
              AND (\(venue)::uuid IS NULL OR e.venue_id = \(venue)::uuid)
              AND (\(before)::timestamptz IS NULL OR e.starts_at < \(before)::timestamptz)
              AND (\(after?.micros)::bigint IS NULL
                   OR (e.starts_at, e.id) > ('epoch'::timestamptz + \(after?.micros)::bigint * interval '1 microsecond',
                                             \(after?.id)::uuid))
            ORDER BY e.starts_at, e.id
            LIMIT \(limit)
            """, logger: logger)
        return try await Self.events(rows)
    }

    /// Creates an event.
    public func create(_ draft: Routing.EventDraft, venue: UUID?, id: UUID, now: Date) async throws
        -> Routing.CampusEvent
    {
        let rows = try await client.fetch(
            """
            WITH e AS (
              INSERT INTO routing.events (
                id, title, kind, venue_id, description, starts_at, ends_at, updated_at, modules, faculties)
              VALUES (\(id), \(draft.title), \(draft.kind), \(venue), \(draft.description ?? ""), \(draft.startsAt),
                      \(draft.endsAt), \(now), \(draft.modules ?? [])::text[], \(draft.faculties ?? [])::text[])
              RETURNING *)
            SELECT e.id, e.title, e.kind, e.venue_id, v.name, e.starts_at, e.ends_at, e.description, e.modules, e.faculties
            FROM e LEFT JOIN routing.venues v ON v.id = e.venue_id
            """, logger: logger)
        guard let event = try await Self.events(rows).first else {
            throw ServiceError(.internal, "inserting event \(id) returned no row")
        }
        return event
    }

    /// Replaces an event; nil when there is none.
    public func update(id: UUID, with draft: Routing.EventDraft, venue: UUID?, now: Date) async throws
        -> Routing.CampusEvent?
    {
        let rows = try await client.fetch(
            """
            WITH e AS (
              UPDATE routing.events SET title = \(draft.title), kind = \(draft.kind), venue_id = \(venue),
                description = \(draft.description ?? ""), starts_at = \(draft.startsAt), ends_at = \(draft.endsAt),
                updated_at = \(now), modules = \(draft.modules ?? [])::text[],
                faculties = \(draft.faculties ?? [])::text[]
              WHERE id = \(id)
              RETURNING *)
            SELECT e.id, e.title, e.kind, e.venue_id, v.name, e.starts_at, e.ends_at, e.description, e.modules, e.faculties
            FROM e LEFT JOIN routing.venues v ON v.id = e.venue_id
            """, logger: logger)
        return try await Self.events(rows).first
    }

    /// Deletes an event; false when there was none.
    public func delete(id: UUID) async throws -> Bool {
        let rows = try await client.fetch("DELETE FROM routing.events WHERE id = \(id) RETURNING id", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    private static func events(_ rows: FetchedRows) async throws -> [Routing.CampusEvent] {
        var events: [Routing.CampusEvent] = []
        for try await row in rows.decode(Row.self) {
            events.append(
                Routing.CampusEvent(
                    id: row.0.uuidString.lowercased(), title: row.1, kind: row.2,
                    venueId: row.3?.uuidString.lowercased(), venueName: row.4, startsAt: row.5, endsAt: row.6,
                    description: row.7, modules: row.8, faculties: row.9))
        }
        return events
    }
}
