import Foundation

/// Where the next page of a keyset-paged list starts: the last row's sort time (its creation
/// time, or an event's start) in microseconds and its id, written `1795536000000000_<uuid>`. A
/// row added or removed between pages never makes another repeat or go missing, as an offset
/// would.
public struct KeysetCursor: Sendable, Equatable, CustomStringConvertible {
    /// The last row's sort time, microseconds since the epoch. A query binds it as a number
    /// (`'epoch'::timestamptz + $1::bigint * interval '1 microsecond'`), never as a `Date` made
    /// from it: PostgresNIO truncates a `Date` to whole microseconds, and about a quarter of the
    /// instants of 2026 written as `Date(timeIntervalSince1970: Double(micros) / 1e6)` are stored
    /// one microsecond early, so the page after them would skip or repeat rows.
    public let micros: Int64
    /// The last row's id (the tie-breaker between rows created in the same microsecond).
    public let id: UUID

    /// The cursor after the row created at `micros` with `id`.
    public init(micros: Int64, id: UUID) {
        self.micros = micros
        self.id = id
    }

    /// The cursor a client sent back, or nil when it sent none; `invalid_argument` naming
    /// `cursor` for anything this API did not give out.
    public static func parse(_ text: String?) throws(ServiceError) -> KeysetCursor? {
        guard let text else { return nil }
        let parts = text.split(separator: "_")
        guard parts.count == 2, let micros = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
            throw ServiceError.invalidArgument("cursor is not one this API gave out", field: "cursor")
        }
        return KeysetCursor(micros: micros, id: id)
    }

    public var description: String { Self.text(micros: micros, id: id.uuidString) }

    /// The text of the cursor after the row at `time` whose id reads `id` (PostgreSQL keeps
    /// microseconds, so the time is rounded to the microsecond it was stored as).
    public static func text(at time: Date, id: some StringProtocol) -> String {
        text(micros: Int64((time.timeIntervalSince1970 * 1_000_000).rounded()), id: id)
    }

    /// The text of the cursor after the row at `micros` whose id reads `id`.
    public static func text(micros: Int64, id: some StringProtocol) -> String { "\(micros)_\(id.lowercased())" }
}
