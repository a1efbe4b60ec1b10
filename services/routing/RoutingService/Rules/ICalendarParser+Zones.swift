import Foundation

/// A `VTIMEZONE` of the file: its `TZID`, its `X-LIC-LOCATION`, the `TZOFFSETTO` of each of
/// its `STANDARD` and `DAYLIGHT` parts, and those parts' rules.
struct ZoneDefinition: Sendable {
    /// The line of its `BEGIN:VTIMEZONE`.
    var line: Int
    var tzid: String?
    var location: String?
    var offsets: [(part: String, seconds: Int)] = []
    /// Its `STANDARD` and `DAYLIGHT` parts, evaluated when it names no IANA zone.
    var rules = ZoneRules(parts: [])
    /// The IANA zone that follows its rules in the file's years (see ``ZoneRules``), if any.
    var matched: TimeZone?
}

extension ICalendarParser {
    /// The zone a `TZID` parameter names, in this order: an IANA name (a leading `/` dropped);
    /// an IANA name ending a path-like id (`/citadel.org/20190101_1/Africa/Johannesburg`);
    /// else the file's `VTIMEZONE` of that `TZID`: the IANA zone its `X-LIC-LOCATION` names,
    /// else, when all its parts have one offset (a zone without daylight saving, such as
    /// `South Africa Standard Time` at +0200), that fixed offset, else the IANA zone that follows
    /// its daylight-saving rules (``ZoneRules``, evaluated for the file's years). Rules no IANA
    /// zone follows (or that are not yearly month-and-weekday rules), or a `TZID` nothing defines,
    /// are an error at the line that uses it.
    func zone(named tzid: String, property: ContentLine) throws(TimetableFormatError) -> TimeZone {
        if let zone = Self.ianaZone(tzid) { return zone }
        let field = "\(property.name);TZID"
        guard let definition = definedZones[tzid] else {
            throw TimetableFormatError(
                line: property.line, field: field,
                "unknown time zone '\(tzid.prefix(60))' (not an IANA name, and no VTIMEZONE of the file defines it)")
        }
        if let location = definition.location, let zone = Self.ianaZone(location) { return zone }
        let offsets = Set(definition.offsets.map(\.seconds))
        if offsets.count == 1, let seconds = offsets.first, let zone = TimeZone(secondsFromGMT: seconds) {
            return zone
        }
        if let matched = definition.matched { return matched }
        throw TimetableFormatError(
            line: property.line, field: field,
            offsets.isEmpty
                ? "the VTIMEZONE '\(tzid.prefix(60))' at line \(definition.line) gives no TZOFFSETTO"
                : "the VTIMEZONE '\(tzid.prefix(60))' at line \(definition.line) has daylight-saving rules that no "
                    + "IANA zone follows (or that are not yearly BYMONTH and BYDAY rules) and names no IANA zone "
                    + "(give its TZID or X-LIC-LOCATION as e.g. Europe/London)")
    }

    /// Matches every definition that names no IANA zone and changes its offset to the IANA zone
    /// following its rules from the year before the file's first event to four years after it.
    static func matchRules(_ definitions: inout [String: ZoneDefinition], firstYear: Int?) {
        guard let firstYear else { return }
        for (tzid, definition) in definitions where Set(definition.offsets.map(\.seconds)).count > 1 {
            if let location = definition.location, ianaZone(location) != nil { continue }
            if ianaZone(tzid) != nil { continue }
            definitions[tzid]?.matched = definition.rules.matchingZone(years: (firstYear - 1)...(firstYear + 4))
        }
    }

    /// An IANA zone named by `name`, or by the end of a path-like id.
    static func ianaZone(_ name: String) -> TimeZone? {
        let trimmed = name.hasPrefix("/") ? String(name.dropFirst()) : name
        if !trimmed.isEmpty, let zone = TimeZone(identifier: trimmed) { return zone }
        let parts = trimmed.split(separator: "/")
        guard parts.count > 2 else { return nil }
        for count in [3, 2] where parts.count > count {
            if let zone = TimeZone(identifier: parts.suffix(count).joined(separator: "/")) { return zone }
        }
        return nil
    }

    /// A `TZOFFSETTO` value, `+HHMM` or `+HHMMSS`, in seconds east of UTC.
    static func offset(_ property: ContentLine) throws(TimetableFormatError) -> Int {
        let value = property.value.trimmingCharacters(in: .whitespaces)
        guard let match = value.wholeMatch(of: /([+-])([0-9]{2})([0-9]{2})([0-9]{2})?/),
            let hours = Int(match.2), let minutes = Int(match.3), hours <= 23, minutes <= 59
        else {
            throw TimetableFormatError(
                line: property.line, field: property.name, "'\(value.prefix(20))' is not a UTC offset like +0200")
        }
        let seconds = hours * 3600 + minutes * 60 + (match.4.flatMap { Int($0) } ?? 0)
        return match.1 == "-" ? -seconds : seconds
    }
}
