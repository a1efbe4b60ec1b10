import Foundation

/// Reads class meetings from the timetable CSV (RFC 4180: commas, double quotes around fields
/// holding commas, quotes or line breaks, `""` for a quote). The first row names the columns, in
/// any order:
///
/// | column | required | content |
/// |---|---|---|
/// | `module` | yes | module code, e.g. `COS 301` |
/// | `name` | no | module name |
/// | `faculty` | no | module's faculty |
/// | `kind` | yes | `lecture`, `tutorial` or `practical` |
/// | `days` | yes | weekdays, `;`-separated: `MO;WE` or `Monday;Wednesday` |
/// | `start`, `end` | yes | `HH:MM` in the campus zone |
/// | `location` | yes | venue name |
/// | `from` | yes | `YYYY-MM-DD`, the first day of the term; meetings start on the first listed weekday from it |
/// | `until` | no | `YYYY-MM-DD`, the last day (inclusive); none: weekly without end |
/// | `except` | no | `YYYY-MM-DD` days without the meeting, `;`-separated |
/// | `uid` | no | a stable id; default `csv:` + module, kind, days, start and location |
public struct TimetableCSV: Sendable {
    public static let columns = ["module", "name", "faculty", "kind", "days", "start", "end", "location", "from", "until", "except", "uid"]
    static let required = ["module", "kind", "days", "start", "end", "location", "from"]

    public let campusZone: TimeZone
    public init(campusZone: TimeZone) { self.campusZone = campusZone }

    public func parse(_ text: String) throws(TimetableFormatError) -> ParsedTimetable {
        let rows = try Self.rows(text)
        guard let header = rows.first else {
            throw TimetableFormatError(line: 1, field: "header", "the file is empty; the first row names the columns")
        }
        var index: [String: Int] = [:]
        for (position, name) in header.fields.enumerated() {
            let column = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard Self.columns.contains(column) else {
                throw TimetableFormatError(
                    line: header.line, field: "header",
                    "unknown column '\(column.prefix(30))' (columns: \(Self.columns.joined(separator: ", ")))")
            }
            guard index[column] == nil else {
                throw TimetableFormatError(line: header.line, field: column, "column \(column) is named twice")
            }
            index[column] = position
        }
        for column in Self.required where index[column] == nil {
            throw TimetableFormatError(line: header.line, field: column, "the header has no column \(column)")
        }
        var entries: [TimetableEntry] = []
        for row in rows.dropFirst() {
            if row.fields.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            guard row.fields.count == header.fields.count else {
                throw TimetableFormatError(
                    line: row.line, field: "row", "\(row.fields.count) fields where the header has \(header.fields.count)")
            }
            func field(_ name: String) -> String? {
                guard let position = index[name] else { return nil }
                let value = row.fields[position].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
            func require(_ name: String) throws(TimetableFormatError) -> String {
                guard let value = field(name) else { throw TimetableFormatError(line: row.line, field: name, "\(name) is empty") }
                return value
            }
            let moduleText = try require("module")
            guard let (code, rest) = TimetableNames.moduleCode(prefixOf: moduleText), rest.trimmingCharacters(in: .whitespaces).isEmpty
            else {
                throw TimetableFormatError(line: row.line, field: "module", "'\(moduleText.prefix(30))' is not a module code like COS 301")
            }
            let kindText = try require("kind")
            guard let kind = TimetableNames.kind(kindText), kindText.count > 1 else {
                throw TimetableFormatError(line: row.line, field: "kind", "kind is lecture, tutorial or practical")
            }
            var days: [Int] = []
            for day in try require("days").split(separator: ";") {
                guard let weekday = TimetableNames.weekday(day) else {
                    throw TimetableFormatError(line: row.line, field: "days", "'\(day.prefix(12))' is not a weekday (MO...SU)")
                }
                if !days.contains(weekday) { days.append(weekday) }
            }
            guard !days.isEmpty else { throw TimetableFormatError(line: row.line, field: "days", "days is empty") }
            let start = try Self.time(try require("start"), line: row.line, field: "start")
            let end = try Self.time(try require("end"), line: row.line, field: "end")
            guard end > start else { throw TimetableFormatError(line: row.line, field: "end", "end must be after start") }
            let from = try Self.day(try require("from"), line: row.line, field: "from")
            var recurrence = WeeklyRecurrence(weekdays: days)
            if let untilText = field("until") {
                var until = try Self.day(untilText, line: row.line, field: "until")
                guard until >= from else {
                    throw TimetableFormatError(line: row.line, field: "until", "until is before from")
                }
                (until.hour, until.minute, until.second) = (23, 59, 59)
                recurrence.until = until.instant(in: campusZone)
            }
            // The first meeting: the first listed weekday on or after `from`.
            let firstDay = (0..<7).map { from.dayNumber + $0 }.first { days.contains(LocalDateTime.weekday(ofDay: $0)) }!
            var first = LocalDateTime(year: 0, month: 1, day: 1, hour: start / 60, minute: start % 60).on(day: firstDay)
            first.second = 0
            var exceptions = Set<Date>()
            for day in (field("except") ?? "").split(separator: ";") {
                let except = try Self.day(String(day), line: row.line, field: "except")
                exceptions.insert(first.on(day: except.dayNumber).instant(in: campusZone))
            }
            let location = try require("location")
            let uid = field("uid") ?? "csv:\(code)|\(kind)|\(days.map(String.init).joined(separator: ","))|\(start)|\(TimetableNames.matchKey(location))"
            guard uid.count <= 500 else { throw TimetableFormatError(line: row.line, field: "uid", "uid is at most 500 characters") }
            entries.append(
                TimetableEntry(
                    uid: uid, moduleCode: code, moduleName: field("name"), faculty: field("faculty"), kind: kind,
                    location: location,
                    schedule: MeetingSchedule(
                        start: first, zone: campusZone, duration: (end - start) * 60, recurrence: recurrence,
                        exceptions: exceptions),
                    line: row.line))
        }
        return ParsedTimetable(entries: entries, cancelled: [])
    }

    /// `HH:MM` as minutes since midnight.
    static func time(_ text: String, line: Int, field: String) throws(TimetableFormatError) -> Int {
        guard let match = text.wholeMatch(of: /([0-9]{1,2}):([0-9]{2})/), let hour = Int(match.1), let minute = Int(match.2),
            hour < 24, minute < 60
        else { throw TimetableFormatError(line: line, field: field, "'\(text.prefix(12))' is not a time like 08:30") }
        return hour * 60 + minute
    }

    /// `YYYY-MM-DD`.
    static func day(_ text: String, line: Int, field: String) throws(TimetableFormatError) -> LocalDateTime {
        guard let match = text.trimmingCharacters(in: .whitespaces).wholeMatch(of: /([0-9]{4})-([0-9]{2})-([0-9]{2})/)
        else { throw TimetableFormatError(line: line, field: field, "'\(text.prefix(12))' is not a date like 2026-02-09") }
        let day = LocalDateTime(year: Int(match.1)!, month: Int(match.2)!, day: Int(match.3)!)
        guard day.isValid else { throw TimetableFormatError(line: line, field: field, "'\(text)' is not a real date") }
        return day
    }

    /// RFC 4180 records with the line each starts on.
    static func rows(_ text: String) throws(TimetableFormatError) -> [(fields: [String], line: Int)] {
        var rows: [(fields: [String], line: Int)] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var quoted = false
        var line = 1
        var rowLine = 1
        var iterator = text.makeIterator()
        var pending: Character? = iterator.next()
        func endRow() {
            fields.append(field)
            rows.append((fields, rowLine))
            fields = []
            field = ""
            quoted = false
        }
        while let character = pending {
            pending = iterator.next()
            if inQuotes {
                if character == "\"" {
                    if pending == "\"" {
                        field.append("\"")
                        pending = iterator.next()
                    } else {
                        inQuotes = false
                    }
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"":
                guard field.trimmingCharacters(in: .whitespaces).isEmpty, !quoted else {
                    throw TimetableFormatError(line: line, field: "row", "a quote inside an unquoted field")
                }
                field = ""
                inQuotes = true
                quoted = true
            case ",":
                fields.append(field)
                field = ""
                quoted = false
            case "\n", "\r\n", "\r":
                endRow()
                line += 1
                rowLine = line
            default:
                guard !quoted || character == " " else {
                    throw TimetableFormatError(line: line, field: "row", "text after a closing quote")
                }
                if !quoted { field.append(character) }
            }
        }
        if inQuotes { throw TimetableFormatError(line: rowLine, field: "row", "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty { endRow() }
        return rows
    }
}
