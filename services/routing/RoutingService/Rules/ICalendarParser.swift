import Foundation

/// Reads class meetings from an iCalendar file (RFC 5545), the subset timetabling systems export:
///
/// - `VEVENT` with `UID`, `DTSTART`, and `DTEND` or `DURATION`; times in UTC (`...Z`), with a
///   `TZID` (an IANA zone name such as `Europe/London`, or a name a `VTIMEZONE` of the file
///   defines: see ``zone(named:property:)``), or floating (the campus zone);
/// - `RRULE:FREQ=WEEKLY` with `BYDAY`, `INTERVAL`, `UNTIL`, `COUNT`, `WKST`;
/// - `EXDATE` (date-times, or `VALUE=DATE` days) cancelling single meetings;
/// - `RECURRENCE-ID`: a moved meeting (the original start is cancelled and the moved one kept as
///   a meeting of its own), or a cancelled one with `STATUS:CANCELLED`;
/// - `STATUS:CANCELLED` on a whole event withdraws it;
/// - `SUMMARY` starting with the module code (`COS 301 Software Engineering - Lecture`),
///   `CATEGORIES` naming the kind (`LECTURE`, `TUTORIAL`, `PRACTICAL`; else a kind word in the
///   summary; else a lecture), `LOCATION` the venue's name, and the extensions
///   `X-NAVUP-MODULE-NAME` and `X-NAVUP-FACULTY`.
///
/// Other components (`VALARM`, ...) and properties are skipped. Anything it cannot
/// read is a ``TimetableFormatError`` naming the line and the property.
public struct ICalendarParser: Sendable {
    /// The zone of floating times.
    public let campusZone: TimeZone
    /// The file's `VTIMEZONE` components by `TZID`.
    var definedZones: [String: ZoneDefinition] = [:]

    public init(campusZone: TimeZone) { self.campusZone = campusZone }

    /// A content line: name, parameters, value, and the line it starts on.
    struct ContentLine {
        var name: String
        var parameters: [String: String]
        var value: String
        var line: Int
    }

    public func parse(_ text: String) throws(TimetableFormatError) -> ParsedTimetable {
        let lines = try Self.contentLines(text)
        var entries: [TimetableEntry] = []
        var cancelled: [String] = []
        var overrides: [(uid: String, original: Date, entry: TimetableEntry?)] = []
        var stack: [String] = []
        var event: [ContentLine] = []
        var eventLine = 0
        var events: [(properties: [ContentLine], line: Int)] = []
        var zone = ZoneDefinition(line: 0)
        var definitions: [String: ZoneDefinition] = [:]
        var sawCalendar = false
        for line in lines {
            switch line.name {
            case "BEGIN":
                let component = line.value.uppercased()
                if component == "VCALENDAR" { sawCalendar = true }
                if component == "VEVENT" && stack == ["VCALENDAR"] {
                    event = []
                    eventLine = line.line
                }
                if component == "VTIMEZONE" && stack == ["VCALENDAR"] { zone = ZoneDefinition(line: line.line) }
                if stack == ["VCALENDAR", "VTIMEZONE"] { zone.rules.parts.append(.init(line: line.line)) }
                stack.append(component)
            case "END":
                guard stack.last == line.value.uppercased() else {
                    throw TimetableFormatError(
                        line: line.line, field: "END", "END:\(line.value) does not close BEGIN:\(stack.last ?? "-")")
                }
                stack.removeLast()
                if line.value.uppercased() == "VEVENT" && stack == ["VCALENDAR"] { events.append((event, eventLine)) }
                if line.value.uppercased() == "VTIMEZONE" && stack == ["VCALENDAR"], let tzid = zone.tzid {
                    definitions[tzid] = zone
                }
            default:
                if stack == ["VCALENDAR", "VEVENT"] { event.append(line) }
                if stack == ["VCALENDAR", "VTIMEZONE"] {
                    if line.name == "TZID" { zone.tzid = line.value.trimmingCharacters(in: .whitespaces) }
                    if line.name == "X-LIC-LOCATION" { zone.location = line.value.trimmingCharacters(in: .whitespaces) }
                }
                if stack.count == 3, stack[1] == "VTIMEZONE", !zone.rules.parts.isEmpty {
                    let last = zone.rules.parts.count - 1
                    switch line.name {
                    case "TZOFFSETTO":
                        let offset = try Self.offset(line)
                        zone.offsets.append((stack[2], offset))
                        zone.rules.parts[last].offsetTo = offset
                    case "TZOFFSETFROM": zone.rules.parts[last].offsetFrom = try Self.offset(line)
                    case "DTSTART": zone.rules.parts[last].start = try? dateTime(line).0
                    case "RRULE": zone.rules.parts[last].rule = line.value.trimmingCharacters(in: .whitespaces)
                    default: break
                    }
                }
            }
        }
        // Events after zones: a VTIMEZONE may come after the events that use it.
        let firstYear = events.flatMap { $0.properties }.filter { $0.name == "DTSTART" }
            .compactMap { Int($0.value.trimmingCharacters(in: .whitespaces).prefix(4)) }.min()
        Self.matchRules(&definitions, firstYear: firstYear)
        var reader = self
        reader.definedZones = definitions
        for (properties, line) in events {
            switch try reader.read(event: properties, line: line) {
            case .meeting(let entry): entries.append(entry)
            case .cancelled(let uid): cancelled.append(uid)
            case .override(let uid, let original, let entry): overrides.append((uid, original, entry))
            case .skipped: break
            }
        }
        guard sawCalendar else {
            throw TimetableFormatError(line: 1, field: "BEGIN", "not an iCalendar file: no BEGIN:VCALENDAR")
        }
        if let open = stack.last {
            throw TimetableFormatError(line: lines.last?.line ?? 1, field: "END", "BEGIN:\(open) is never closed")
        }
        // A moved or cancelled single meeting: its original start is an exception of the series.
        for override in overrides {
            if let index = entries.firstIndex(where: { $0.uid == override.uid }) {
                entries[index].schedule.exceptions.insert(override.original)
            }
            if let moved = override.entry { entries.append(moved) }
        }
        return ParsedTimetable(entries: entries, cancelled: cancelled)
    }

    enum EventOutcome {
        case meeting(TimetableEntry)
        case cancelled(String)
        case override(uid: String, original: Date, entry: TimetableEntry?)
        case skipped
    }

    func read(event properties: [ContentLine], line: Int) throws(TimetableFormatError) -> EventOutcome {
        func one(_ name: String) -> ContentLine? { properties.first { $0.name == name } }
        func require(_ name: String) throws(TimetableFormatError) -> ContentLine {
            guard let found = one(name) else {
                throw TimetableFormatError(line: line, field: name, "the VEVENT has no \(name)")
            }
            return found
        }
        let uid = try require("UID").value.trimmingCharacters(in: .whitespaces)
        guard !uid.isEmpty, uid.count <= 500 else {
            throw TimetableFormatError(line: line, field: "UID", "UID must be 1-500 characters")
        }
        let isCancelled = one("STATUS")?.value.uppercased() == "CANCELLED"
        var original: Date?
        if let recurrenceId = one("RECURRENCE-ID") {
            let (local, zone) = try dateTime(recurrenceId)
            original = local.instant(in: zone)
            if isCancelled { return .override(uid: uid, original: original!, entry: nil) }
        } else if isCancelled {
            return .cancelled(uid)
        }
        let startLine = try require("DTSTART")
        if startLine.parameters["VALUE"]?.uppercased() == "DATE" || startLine.value.count == 8 {
            // An all-day event (a holiday, a test week) is not a class meeting.
            return .skipped
        }
        let (start, zone) = try dateTime(startLine)
        let duration: Int
        if let endLine = one("DTEND") {
            let (end, endZone) = try dateTime(endLine)
            duration = Int(end.instant(in: endZone).timeIntervalSince(start.instant(in: zone)))
        } else if let durationLine = one("DURATION") {
            duration = try Self.duration(durationLine)
        } else {
            throw TimetableFormatError(line: line, field: "DTEND", "the VEVENT has neither DTEND nor DURATION")
        }
        guard duration > 0, duration <= 24 * 3600 else {
            throw TimetableFormatError(
                line: one("DTEND")?.line ?? line, field: "DTEND", "a meeting lasts more than 0 s and at most 24 h")
        }
        var recurrence: WeeklyRecurrence?
        if let rule = one("RRULE"), original == nil { recurrence = try self.recurrence(rule, zone: zone) }
        var exceptions = Set<Date>()
        for exdate in properties where exdate.name == "EXDATE" {
            for value in exdate.value.split(separator: ",") {
                var single = exdate
                single.value = String(value)
                if exdate.parameters["VALUE"]?.uppercased() == "DATE" || value.count == 8 {
                    let day = try Self.date(String(value), line: exdate.line, field: "EXDATE")
                    exceptions.insert(start.on(day: day.dayNumber).instant(in: zone))
                } else {
                    let (local, exZone) = try dateTime(single)
                    exceptions.insert(local.instant(in: exZone))
                }
            }
        }
        let summaryLine = try require("SUMMARY")
        let summary = Self.unescape(summaryLine.value)
        guard let (code, rest) = TimetableNames.moduleCode(prefixOf: summary) else {
            throw TimetableFormatError(
                line: summaryLine.line, field: "SUMMARY",
                "SUMMARY must start with the module code, e.g. 'COS 301 Software Engineering - Lecture'")
        }
        var kind: String?
        for categories in properties where categories.name == "CATEGORIES" {
            for word in Self.unescape(categories.value).split(separator: ",") where kind == nil {
                kind = TimetableNames.kind(word)
            }
        }
        // The summary's words after the code: a trailing kind word, then the module's name.
        var words = rest.split(whereSeparator: { " \t-–:()[],".contains($0) })
        if let last = words.last, let named = TimetableNames.kind(last), last.count > 1 {
            kind = kind ?? named
            words.removeLast()
        }
        let restName = words.joined(separator: " ")
        let moduleName = one("X-NAVUP-MODULE-NAME").map { Self.unescape($0.value) } ?? (restName.isEmpty ? nil : restName)
        let location = one("LOCATION").map { Self.unescape($0.value).trimmingCharacters(in: .whitespaces) } ?? ""
        let schedule = MeetingSchedule(
            start: start, zone: zone, duration: duration, recurrence: recurrence, exceptions: exceptions)
        var entry = TimetableEntry(
            uid: uid, moduleCode: code, moduleName: moduleName, faculty: one("X-NAVUP-FACULTY").map { Self.unescape($0.value) },
            kind: kind ?? "lecture", location: location, schedule: schedule, line: line)
        if let original {
            entry.uid = "\(uid)#\(Int(original.timeIntervalSince1970))"
            return .override(uid: uid, original: original, entry: entry)
        }
        return .meeting(entry)
    }

    /// A `DATE-TIME` value with its zone: `...Z` is UTC, a `TZID` parameter names the zone,
    /// neither is the campus zone.
    func dateTime(_ property: ContentLine) throws(TimetableFormatError) -> (LocalDateTime, TimeZone) {
        let value = property.value.trimmingCharacters(in: .whitespaces)
        guard
            let match = value.wholeMatch(of: /([0-9]{4})([0-9]{2})([0-9]{2})T([0-9]{2})([0-9]{2})([0-9]{2})(Z?)/)
        else {
            throw TimetableFormatError(
                line: property.line, field: property.name, "'\(value.prefix(40))' is not a date-time like 20260209T083000")
        }
        let local = LocalDateTime(
            year: Int(match.1)!, month: Int(match.2)!, day: Int(match.3)!, hour: Int(match.4)!, minute: Int(match.5)!,
            second: min(59, Int(match.6)!))
        guard local.isValid else {
            throw TimetableFormatError(line: property.line, field: property.name, "'\(value)' is not a real date and time")
        }
        if !match.7.isEmpty { return (local, TimeZone(identifier: "UTC")!) }
        if let tzid = property.parameters["TZID"] {
            return (local, try zone(named: tzid, property: property))
        }
        return (local, campusZone)
    }

    /// A `DATE` value, `YYYYMMDD`.
    static func date(_ value: String, line: Int, field: String) throws(TimetableFormatError) -> LocalDateTime {
        guard let match = value.wholeMatch(of: /([0-9]{4})([0-9]{2})([0-9]{2})/) else {
            throw TimetableFormatError(line: line, field: field, "'\(value.prefix(40))' is not a date like 20260209")
        }
        let day = LocalDateTime(year: Int(match.1)!, month: Int(match.2)!, day: Int(match.3)!)
        guard day.isValid else { throw TimetableFormatError(line: line, field: field, "'\(value)' is not a real date") }
        return day
    }

    /// `DURATION` in seconds (`PT1H30M`, `PT50M`, `P1D`...).
    static func duration(_ property: ContentLine) throws(TimetableFormatError) -> Int {
        guard let match = property.value.wholeMatch(
            of: /\+?P(?:([0-9]+)W)?(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)S)?)?/),
            property.value.count > 1
        else {
            throw TimetableFormatError(line: property.line, field: "DURATION", "not a duration like PT1H30M")
        }
        let parts = [match.1, match.2, match.3, match.4, match.5].map { $0.flatMap { Int($0) } ?? 0 }
        return parts[0] * 604_800 + parts[1] * 86_400 + parts[2] * 3600 + parts[3] * 60 + parts[4]
    }

    /// `RRULE`: only weekly rules.
    func recurrence(_ property: ContentLine, zone: TimeZone) throws(TimetableFormatError) -> WeeklyRecurrence {
        var rule = WeeklyRecurrence(weekdays: [])
        var frequency: String?
        for part in property.value.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else {
                throw TimetableFormatError(line: property.line, field: "RRULE", "'\(part.prefix(40))' is not NAME=VALUE")
            }
            let value = String(pair[1])
            switch pair[0].uppercased() {
            case "FREQ":
                frequency = value.uppercased()
            case "BYDAY":
                for day in value.split(separator: ",") {
                    guard let weekday = TimetableNames.weekday(day), day.count == 2 else {
                        throw TimetableFormatError(
                            line: property.line, field: "RRULE:BYDAY",
                            "'\(day.prefix(10))' is not MO, TU, WE, TH, FR, SA or SU (weekly rules take plain days)")
                    }
                    rule.weekdays.append(weekday)
                }
            case "INTERVAL":
                guard let interval = Int(value), (1...52).contains(interval) else {
                    throw TimetableFormatError(line: property.line, field: "RRULE:INTERVAL", "INTERVAL is 1-52")
                }
                rule.interval = interval
            case "COUNT":
                guard let count = Int(value), (1...1000).contains(count) else {
                    throw TimetableFormatError(line: property.line, field: "RRULE:COUNT", "COUNT is 1-1000")
                }
                rule.count = count
            case "UNTIL":
                if value.count == 8 {
                    // A date: the whole of that day counts.
                    var day = try Self.date(value, line: property.line, field: "RRULE:UNTIL")
                    (day.hour, day.minute, day.second) = (23, 59, 59)
                    rule.until = day.instant(in: zone)
                } else {
                    var until = property
                    until.name = "RRULE:UNTIL"
                    until.value = value
                    until.parameters = [:]
                    let (local, untilZone) = try dateTime(until)
                    rule.until = local.instant(in: value.hasSuffix("Z") ? untilZone : zone)
                }
            case "WKST":
                guard let weekday = TimetableNames.weekday(value), value.count == 2 else {
                    throw TimetableFormatError(line: property.line, field: "RRULE:WKST", "WKST is MO...SU")
                }
                rule.weekStart = weekday
            default:
                throw TimetableFormatError(
                    line: property.line, field: "RRULE",
                    "\(pair[0].prefix(20)) is not supported (weekly rules with BYDAY, INTERVAL, UNTIL, COUNT, WKST)")
            }
        }
        guard frequency == "WEEKLY" else {
            throw TimetableFormatError(
                line: property.line, field: "RRULE:FREQ", "only FREQ=WEEKLY is supported (got \(frequency ?? "none"))")
        }
        guard rule.count == nil || rule.until == nil else {
            throw TimetableFormatError(line: property.line, field: "RRULE", "UNTIL and COUNT must not both be given")
        }
        return rule
    }

    /// Unfolds lines (a line starting with a space or tab continues the one before) and splits
    /// each into name, parameters and value.
    static func contentLines(_ text: String) throws(TimetableFormatError) -> [ContentLine] {
        var logical: [(text: String, line: Int)] = []
        var number = 0
        // "\r\n" is one Character (a grapheme cluster), not a "\n".
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var physical = raw
            if physical.last == "\r" { physical.removeLast() }
            if let first = physical.first, first == " " || first == "\t", !logical.isEmpty {
                logical[logical.count - 1].text += physical.dropFirst()
            } else if !physical.isEmpty {
                logical.append((String(physical), number))
            }
        }
        var lines: [ContentLine] = []
        lines.reserveCapacity(logical.count)
        for (text, line) in logical {
            // The value starts at the first ':' outside a quoted parameter value.
            var inQuotes = false
            var colon: String.Index?
            for index in text.indices {
                let character = text[index]
                if character == "\"" { inQuotes.toggle() }
                if character == ":" && !inQuotes {
                    colon = index
                    break
                }
            }
            guard let colon else {
                throw TimetableFormatError(line: line, field: String(text.prefix(20)), "a content line needs NAME:VALUE")
            }
            var head = Self.splitOutsideQuotes(text[..<colon], on: ";")
            let name = head.removeFirst().uppercased()
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw TimetableFormatError(line: line, field: String(name.prefix(20)), "not a property name")
            }
            var parameters: [String: String] = [:]
            for parameter in head {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else {
                    throw TimetableFormatError(line: line, field: name, "parameter '\(parameter.prefix(30))' needs NAME=VALUE")
                }
                var value = String(pair[1])
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                parameters[pair[0].uppercased()] = value
            }
            lines.append(ContentLine(name: name, parameters: parameters, value: String(text[text.index(after: colon)...]), line: line))
        }
        return lines
    }

    static func splitOutsideQuotes(_ text: Substring, on separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var inQuotes = false
        var start = text.startIndex
        for index in text.indices {
            if text[index] == "\"" { inQuotes.toggle() }
            if text[index] == separator && !inQuotes {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        parts.append(text[start...])
        return parts
    }

    /// A TEXT value with its escapes (`\,`, `\;`, `\n`, `\\`) read.
    static func unescape(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var result = ""
        var escaped = false
        for character in value {
            if escaped {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
