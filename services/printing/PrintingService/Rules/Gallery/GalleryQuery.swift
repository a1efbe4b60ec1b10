import Contract
import Foundation
import PrintingContract

/// A checked gallery list request: the position (if any), the search words, the page size and
/// where the page starts.
///
/// With a position, pages are keyset pages on `(distance, id)`; without one, on
/// `(created_at, id)` descending (newest first). Either way an image added between two pages
/// never makes an item show twice or go missing among those already ordered before it. The
/// cursor is the last item's key plus the position and search it was read for, in base64url
/// JSON, so a cursor is refused with another position or search.
public struct GalleryQuery: Sendable, Equatable {
    public var lat: Double?
    public var lon: Double?
    /// The search's words, lower-cased; an item matches when it holds all of them.
    public var words: [String]
    public var limit: Int
    /// The key the page starts after, if any.
    public var after: Position?

    /// Where a page ends in the ordering.
    public struct Position: Codable, Sendable, Equatable {
        /// Distance in metres, exactly as PostgreSQL computed it (lists with a position).
        public var distance: Double?
        /// `created_at` in microseconds since 1970 (lists without a position).
        public var created: Int64?
        public var id: UUID
        var lat: Double?
        var lon: Double?
        var q: [String]?
    }

    /// Whether the list is ordered by distance from a position (else newest first).
    public var hasPosition: Bool { lat != nil }

    /// Checks `request`: `lat` and `lon` both or neither (400 naming the one missing or out of
    /// range), `q` at most ``Printing/ListGallery/maxQuery`` characters and
    /// ``Printing/ListGallery/maxQueryWords`` words (blank is no search), the limit 1 to
    /// ``Printing/ListGallery/maxLimit``, and a cursor from the same position and search.
    public init(_ request: Printing.ListGallery.Request) throws(ServiceError) {
        if request.lat != nil || request.lon != nil {
            let (lat, lon) = try Self.position(lat: request.lat, lon: request.lon)
            self.lat = lat
            self.lon = lon
        }
        words = try Self.words(request.q)
        let limit = request.limit ?? Printing.ListGallery.defaultLimit
        guard (1...Printing.ListGallery.maxLimit).contains(limit) else {
            throw .invalidArgument("limit is 1 to \(Printing.ListGallery.maxLimit)", field: "limit")
        }
        self.limit = limit
        if let cursor = request.cursor {
            guard let data = Data(base64URL: cursor),
                let after = try? JSONDecoder().decode(Position.self, from: data),
                (after.distance != nil) == (lat != nil), (after.created != nil) == (lat == nil)
            else { throw .invalidArgument("cursor is not one this service gave out", field: "cursor") }
            guard after.lat == lat, after.lon == lon, after.q ?? [] == words else {
                throw .invalidArgument(
                    "cursor belongs to another position or search; ask again without it", field: "cursor")
            }
            self.after = after
        }
    }

    /// The search's distinct words, lower-cased, in the order given; none for no or blank `q`.
    public static func words(_ q: String?) throws(ServiceError) -> [String] {
        guard let q else { return [] }
        guard q.count <= Printing.ListGallery.maxQuery else {
            throw .invalidArgument("q is at most \(Printing.ListGallery.maxQuery) characters", field: "q")
        }
        var words: [String] = []
        for word in q.lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init)
        where !words.contains(word) {
            words.append(word)
        }
        guard words.count <= Printing.ListGallery.maxQueryWords else {
            throw .invalidArgument("q is at most \(Printing.ListGallery.maxQueryWords) words", field: "q")
        }
        return words
    }

    /// `%word%` with `LIKE`'s own characters (`%`, `_` and the escape `\`) taken literally.
    public static func likePattern(_ word: String) -> String {
        var pattern = "%"
        for character in word {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    /// A position both of whose halves are given and in range, to 9 decimal places; 400 naming
    /// the one that is not.
    public static func position(lat: Double?, lon: Double?) throws(ServiceError) -> (Double, Double) {
        let missing = [lat == nil ? "lat" : nil, lon == nil ? "lon" : nil].compactMap { $0 }
        guard let lat, let lon else {
            throw ServiceError(
                .invalidArgument, "give the position: \(missing.joined(separator: " and ")) missing",
                details: ["field": .string(missing[0]), "missing": .array(missing.map { .string($0) })])
        }
        guard lat.isFinite, (-90...90).contains(lat) else {
            throw .invalidArgument("lat is -90 to 90 degrees", field: "lat")
        }
        guard lon.isFinite, (-180...180).contains(lon) else {
            throw .invalidArgument("lon is -180 to 180 degrees", field: "lon")
        }
        return (rounded(lat), rounded(lon))
    }

    /// `degrees` to 9 decimal places (about 0.1 mm): the distance query squares the sines of
    /// half the differences, and a difference of 1e-200 degrees made PostgreSQL's float
    /// arithmetic fail with an underflow (a 500) instead of giving 0 m.
    public static func rounded(_ degrees: Double) -> Double {
        (degrees * 1e9).rounded() / 1e9
    }

    /// The cursor of a page that ends with the item at `distance` with `id` (a list by position).
    public func cursor(after distance: Double, id: UUID) -> String {
        encode(Position(distance: distance, id: id, lat: lat, lon: lon, q: words.isEmpty ? nil : words))
    }

    /// The cursor of a page that ends with the item created at `created` (microseconds since
    /// 1970) with `id` (a list without a position).
    public func cursor(afterCreated created: Int64, id: UUID) -> String {
        encode(Position(created: created, id: id, q: words.isEmpty ? nil : words))
    }

    /// The words as `LIKE` patterns (see ``likePattern(_:)``).
    public var patterns: [String] { words.map(Self.likePattern) }

    private func encode(_ position: Position) -> String {
        ((try? JSONEncoder().encode(position)) ?? Data()).base64URL
    }
}

/// A gallery image's tags and place name as an admin gives them, checked.
public enum GalleryLabels {
    /// Tags trimmed, blank ones and repeats (ignoring case) dropped; at most
    /// ``Printing/GalleryLabels/maxTags`` of at most ``Printing/GalleryLabels/maxTag`` characters,
    /// else 400 naming `tags`.
    public static func tags(_ given: [String]?) throws(ServiceError) -> [String] {
        var tags: [String] = []
        for tag in (given ?? []).map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !tag.isEmpty {
            guard tag.count <= Printing.GalleryLabels.maxTag else {
                throw .invalidArgument("a tag is at most \(Printing.GalleryLabels.maxTag) characters", field: "tags")
            }
            if !tags.contains(where: { $0.lowercased() == tag.lowercased() }) { tags.append(tag) }
        }
        guard tags.count <= Printing.GalleryLabels.maxTags else {
            throw .invalidArgument("at most \(Printing.GalleryLabels.maxTags) tags", field: "tags")
        }
        return tags
    }

    /// The place name trimmed (blank is none); at most ``Printing/GalleryLabels/maxPlace``
    /// characters, else 400 naming `place`.
    public static func place(_ given: String?) throws(ServiceError) -> String? {
        guard let place = given?.trimmingCharacters(in: .whitespacesAndNewlines), !place.isEmpty else { return nil }
        guard place.count <= Printing.GalleryLabels.maxPlace else {
            throw .invalidArgument("place is at most \(Printing.GalleryLabels.maxPlace) characters", field: "place")
        }
        return place
    }
}

extension Data {
    /// Base64url without padding (RFC 4648 section 5).
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding.
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
