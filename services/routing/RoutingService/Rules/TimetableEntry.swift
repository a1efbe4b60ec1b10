import Foundation

/// One class meeting as an import file describes it, before its location is matched to a venue.
public struct TimetableEntry: Sendable, Hashable {
    /// What identifies the meeting across imports (the iCalendar `UID`, the CSV `uid` column, or
    /// one made from the CSV row's module, kind, days, start and location).
    public var uid: String
    /// Normalised, e.g. `COS 301`.
    public var moduleCode: String
    public var moduleName: String?
    public var faculty: String?
    /// `lecture`, `tutorial` or `practical`.
    public var kind: String
    /// As written in the file; matched to a venue by name.
    public var location: String
    public var schedule: MeetingSchedule
    /// The file's line the entry starts on.
    public var line: Int

    public init(
        uid: String, moduleCode: String, moduleName: String?, faculty: String?, kind: String, location: String,
        schedule: MeetingSchedule, line: Int
    ) {
        self.uid = uid
        self.moduleCode = moduleCode
        self.moduleName = moduleName
        self.faculty = faculty
        self.kind = kind
        self.location = location
        self.schedule = schedule
        self.line = line
    }
}

/// What an import file holds: meetings to create or update, and meetings it cancels.
public struct ParsedTimetable: Sendable {
    public var entries: [TimetableEntry]
    /// UIDs of whole meetings the file marks `STATUS:CANCELLED`.
    public var cancelled: [String]
    public init(entries: [TimetableEntry], cancelled: [String]) {
        self.entries = entries
        self.cancelled = cancelled
    }
}

/// Bad input in an import file: where, which field, what is wrong.
public struct TimetableFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var field: String
    public var message: String
    public init(line: Int, field: String, _ message: String) {
        self.line = line
        self.field = field
        self.message = message
    }
    public var description: String { "line \(line), \(field): \(message)" }
}

/// Module codes and meeting kinds, as both import formats read them.
public enum TimetableNames {
    /// The class kinds.
    public static let kinds = ["lecture", "tutorial", "practical"]

    /// `COS 301`, `cos301`, `WTW 114A`... → `COS 301` / `WTW 114A`: 2-5 letters, a space, 3-4
    /// digits and an optional letter; nil when `text` does not start with one.
    public static func moduleCode(prefixOf text: String) -> (code: String, rest: Substring)? {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        guard let match = trimmed.prefixMatch(of: /([A-Za-z]{2,5}) ?([0-9]{3,4}[A-Za-z]?)(?![A-Za-z0-9])/) else {
            return nil
        }
        return ("\(match.1.uppercased()) \(match.2.uppercased())", trimmed[match.range.upperBound...])
    }

    /// A kind from a word: lecture/lec, tutorial/tut, practical/prac/lab; nil for anything else.
    public static func kind(_ word: some StringProtocol) -> String? {
        switch word.lowercased().trimmingCharacters(in: .whitespaces) {
        case "lecture", "lectures", "lec", "l": "lecture"
        case "tutorial", "tutorials", "tut", "t": "tutorial"
        case "practical", "practicals", "prac", "lab", "laboratory", "p": "practical"
        default: nil
        }
    }

    /// ISO weekday from `MO`...`SU` or an English day name (`Mon`, `Monday`).
    public static func weekday(_ text: some StringProtocol) -> Int? {
        let word = text.lowercased().trimmingCharacters(in: .whitespaces)
        let names = ["mo", "tu", "we", "th", "fr", "sa", "su"]
        guard word.count >= 2, let index = names.firstIndex(of: String(word.prefix(2))) else { return nil }
        let full = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"][index]
        return word.count == 2 || full.hasPrefix(word) ? index + 1 : nil
    }

    /// A location as it is compared with venue names: lower case, runs of spaces as one.
    public static func matchKey(_ text: some StringProtocol) -> String {
        text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}
