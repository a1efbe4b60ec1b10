import Contract
import Foundation
import PrintingContract

/// A checked gallery list request: the position, the page size and where the page starts.
///
/// The cursor is the last item's distance and id plus the position it was measured from, in
/// base64url JSON. Pages are keyset pages on `(distance, id)`, so an image added between two
/// pages never makes an item show twice or go missing among those already ordered before it.
public struct GalleryQuery: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var limit: Int
    /// The `(distance, id)` the page starts after, if any.
    public var after: Position?

    /// Where a page ends in the ordering.
    public struct Position: Codable, Sendable, Equatable {
        /// Distance in metres, exactly as PostgreSQL computed it.
        public var distance: Double
        public var id: UUID
        var lat: Double
        var lon: Double
    }

    /// Checks `request`: a position is required (400 naming what is missing or out of range), the
    /// limit is 1 to ``Printing/ListGallery/maxLimit``, a cursor must come from the same position.
    public init(_ request: Printing.ListGallery.Request) throws(ServiceError) {
        let (lat, lon) = try Self.position(lat: request.lat, lon: request.lon)
        let limit = request.limit ?? Printing.ListGallery.defaultLimit
        guard (1...Printing.ListGallery.maxLimit).contains(limit) else {
            throw .invalidArgument("limit is 1 to \(Printing.ListGallery.maxLimit)", field: "limit")
        }
        self.lat = lat
        self.lon = lon
        self.limit = limit
        if let cursor = request.cursor {
            guard let data = Data(base64URL: cursor),
                let after = try? JSONDecoder().decode(Position.self, from: data)
            else { throw .invalidArgument("cursor is not one this service gave out", field: "cursor") }
            guard after.lat == lat, after.lon == lon else {
                throw .invalidArgument("cursor belongs to another position; ask again without it", field: "cursor")
            }
            self.after = after
        }
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

    /// The cursor of a page that ends with the item at `distance` with `id`.
    public func cursor(after distance: Double, id: UUID) -> String {
        let position = Position(distance: distance, id: id, lat: lat, lon: lon)
        return ((try? JSONEncoder().encode(position)) ?? Data()).base64URL
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
