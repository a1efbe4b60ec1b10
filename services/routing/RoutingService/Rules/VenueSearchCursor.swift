import Contract
import Foundation
import RoutingContract

/// Where the next page of a venue search starts. Search results are ordered by relevance (name
/// similarity, then distance), which no keyset can follow, so the cursor is a position in that
/// order (made total by the venue id), written `<offset>.<search>`: `<search>` is a fingerprint of
/// the query, kind, position and radius, so a cursor sent with a different search is refused
/// rather than answered with the wrong page. Venues change rarely (an admin's edit or a map
/// import), and an edit between two pages can at worst move a venue across the page boundary.
public struct VenueSearchCursor: Equatable {
    /// Results before this page.
    public let offset: Int
    /// ``fingerprint(of:)`` of the search.
    public let search: UInt64

    /// The deepest a search pages: 100 pages of the largest size (nobody reads further, and a
    /// deeper offset would make PostgreSQL sort and skip ever more rows).
    public static let maximumOffset = 10_000

    /// The cursor a client sent back with `request`, or nil when it sent none; `invalid_argument`
    /// naming `cursor` for anything this API did not give out for the same search.
    public static func parse(_ request: Routing.SearchVenues.Request) throws(ServiceError) -> VenueSearchCursor? {
        guard let text = request.cursor else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let offset = Int(parts[0]), (1...maximumOffset).contains(offset),
            let search = UInt64(parts[1], radix: 16)
        else { throw ServiceError.invalidArgument("cursor is not one this API gave out", field: "cursor") }
        guard search == fingerprint(of: request) else {
            throw ServiceError.invalidArgument(
                "cursor belongs to another search: send it with the same q, kind, near and radius", field: "cursor")
        }
        return VenueSearchCursor(offset: offset, search: search)
    }

    /// The cursor of the page after `offset + count` results of `request`, or nil past
    /// ``maximumOffset``.
    public static func after(_ offset: Int, count: Int, of request: Routing.SearchVenues.Request) -> String? {
        let next = offset + count
        guard next <= maximumOffset else { return nil }
        return "\(next).\(String(fingerprint(of: request), radix: 16))"
    }

    /// FNV-1a (64 bits) over what selects and orders the results; the limit and cursor are left
    /// out, so the page size may change between pages.
    public static func fingerprint(of request: Routing.SearchVenues.Request) -> UInt64 {
        func text(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
        let query = request.q?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let parts: [String] = [
            query, request.kind ?? "", text(request.nearLat), text(request.nearLon), text(request.radius),
        ]
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\u{1f}").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0100_0000_01b3
        }
        return hash
    }
}
