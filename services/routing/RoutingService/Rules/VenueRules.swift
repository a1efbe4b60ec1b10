import Contract
import Foundation
import RoutingContract

/// What a venue or an access point sent by an admin must be, and ids as requests carry them.
public enum VenueRules {
    /// A venue id from a request.
    public static func uuid(_ text: String) throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw ServiceError.invalidArgument("not a venue id", field: "id") }
        return id
    }

    /// An id from a request, as a UUID (`what`: the thing it names, for the message).
    public static func uuid(_ text: String, field: String, what: String) throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw ServiceError.invalidArgument("not a \(what) id", field: field)
        }
        return id
    }

    /// The draft as stored: name and kind checked, coordinates to 9 decimal places.
    public static func validated(_ draft: Routing.VenueDraft) throws(ServiceError) -> Routing.VenueDraft {
        guard !draft.name.trimmingCharacters(in: .whitespaces).isEmpty, draft.name.count <= 200 else {
            throw ServiceError.invalidArgument("name must be 1-200 characters", field: "name")
        }
        guard Routing.venueKinds.contains(draft.kind) else {
            throw ServiceError.invalidArgument(
                "kind must be one of \(Routing.venueKinds.joined(separator: ", "))", field: "kind")
        }
        guard (-90...90).contains(draft.lat), (-180...180).contains(draft.lon) else {
            throw ServiceError.invalidArgument("lat/lon out of range", field: "lat")
        }
        try checkLevel(draft.level)
        var draft = draft
        (draft.lat, draft.lon) = (degrees(draft.lat), degrees(draft.lon))
        return draft
    }

    /// A coordinate to 9 decimal places (about 0.1 mm), as venues are stored and searched: the
    /// distance query squares differences in degrees, and one of 1e-300 made PostgreSQL's float
    /// arithmetic fail with an underflow (a 500) instead of giving 0 m.
    public static func degrees(_ value: Double) -> Double {
        (value * 1e9).rounded() / 1e9
    }

    /// A floor number fits the stores' `int` columns (32 bits); beyond that is a 400, not a
    /// database error.
    public static func checkLevel(_ level: Int?, field: String = "level") throws(ServiceError) {
        guard let level, Int32(exactly: level) == nil else { return }
        throw ServiceError.invalidArgument("\(field) is a floor number, -2147483648 to 2147483647", field: field)
    }

    /// An access point as the campus holds it: BSSID in lower case, capacity, level and position checked.
    public static func validated(_ point: Routing.AccessPoint) throws(ServiceError) -> AccessPoint {
        let bssid = point.bssid.lowercased()
        guard bssid.wholeMatch(of: /[0-9a-f]{2}(:[0-9a-f]{2}){5}/) != nil else {
            throw ServiceError.invalidArgument("bssid must look like aa:bb:cc:dd:ee:ff", field: "bssid")
        }
        guard point.capacity > 0, Int32(exactly: point.capacity) != nil else {
            throw ServiceError.invalidArgument("capacity is 1 to 2147483647", field: "capacity")
        }
        try checkLevel(point.level)
        guard (-90...90).contains(point.lat), (-180...180).contains(point.lon) else {
            throw ServiceError.invalidArgument("lat/lon out of range", field: "lat")
        }
        return AccessPoint(
            bssid: bssid, name: point.name, latitude: point.lat, longitude: point.lon, level: point.level,
            capacity: point.capacity)
    }

    /// An access point as the API shows it.
    public static func wire(_ point: AccessPoint) -> Routing.AccessPoint {
        Routing.AccessPoint(
            bssid: point.bssid, name: point.name, lat: point.latitude, lon: point.longitude, level: point.level,
            capacity: point.capacity)
    }
}
