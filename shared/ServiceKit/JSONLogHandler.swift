import Contract
import Glibc
import Logging

/// Writes each log record as one JSON object on one line of standard output:
/// `{"ts":"2026-11-21T18:04:05.123Z","level":"info","service":"auth","msg":"...","requestId":"..."}`.
///
/// Lines go out whole, through ``LogOutput`` (buffered for at most 50 ms; `error` and above at
/// once), so lines from concurrent tasks never interleave.
public struct JSONLogHandler: LogHandler {
    /// The `service` field of every line (the process name).
    public let label: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    /// Where lines go (standard output unless a test says otherwise).
    let output: LogOutput

    /// A handler for the process named `label`.
    public init(
        label: String, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = nil,
        output: LogOutput = .standard
    ) {
        self.output = output
        self.label = label
        self.logLevel = level
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = fieldsOfHandler(extra: event.metadata?.count ?? 0)
        if let extra = event.metadata { for (key, value) in extra { fields.append(Field(key, 2, value)) } }
        write(
            level: event.level, message: event.message.description, fields: &fields,
            source: event.level >= .error ? "\(event.file):\(event.line)" : nil)
    }

    /// One line of `level` with `message` and `fields` (in any order, each key once), plus the
    /// handler's own metadata, as ``log(event:)`` writes it but without swift-log's metadata
    /// dictionary: the path of lines written once per request (the gateway's access log). The
    /// caller checks the level.
    public func log(level: Logger.Level, _ message: String, fields given: [LogField]) {
        // The usual case, the access log: no metadata of the handler's own and the fields given
        // in key order. They are written as they are, with no array of merged fields to sort.
        if metadata.isEmpty && metadataProvider == nil
            && zip(given, given.dropFirst()).allSatisfy({ $0.key < $1.key })
        {
            var line = Self.start(level: level, label: label, message: message)
            for field in given {
                Self.appendKey(field.key, to: &line)
                line.appendJSONStringLiteral(field.value)
            }
            line.append(contentsOf: "}\n".utf8)
            output.write(line, urgent: level >= .error)
            return
        }
        var fields = fieldsOfHandler(extra: given.count)
        for field in given { fields.append(Field(field.key, 2, .string(field.value))) }
        write(level: level, message: message, fields: &fields, source: nil)
    }

    /// A line's field with where it came from: 0 the handler, 1 the provider, 2 the call.
    /// (A struct, not a tuple: an array of tuples looks up the tuple's type metadata at run
    /// time, which showed in the gateway's profile.)
    struct Field {
        let key: String
        let rank: Int
        let value: Logger.Metadata.Value
        init(_ key: String, _ rank: Int, _ value: Logger.Metadata.Value) {
            self.key = key
            self.rank = rank
            self.value = value
        }
    }

    /// The handler's and the provider's fields, with room for `extra` more.
    private func fieldsOfHandler(extra: Int) -> [Field] {
        var fields: [Field] = []
        fields.reserveCapacity(metadata.count + extra + 2)
        for (key, value) in metadata { fields.append(Field(key, 0, value)) }
        if let provided = metadataProvider?.get() { for (key, value) in provided { fields.append(Field(key, 1, value)) } }
        return fields
    }

    /// Writes the line: the fixed fields, then `fields` in key order (a small array sorted once
    /// costs less than merging dictionaries per line), then `source`.
    private func write(level: Logger.Level, message: String, fields: inout [Field], source: String?) {
        fields.sort { $0.key != $1.key ? $0.key < $1.key : $0.rank < $1.rank }
        var line = Self.start(level: level, label: label, message: message)
        for index in fields.indices {
            let field = fields[index]
            // Of two fields with one key, the later source's.
            if index + 1 < fields.count && fields[index + 1].key == field.key { continue }
            Self.appendKey(field.key, to: &line)
            Self.append(field.value, to: &line)
        }
        if let source {
            line.append(contentsOf: #","source":"#.utf8)
            line.appendJSONStringLiteral(source)
        }
        line.append(contentsOf: "}\n".utf8)
        output.write(line, urgent: level >= .error)
    }

    /// A line's fixed fields: `{"ts":"…","level":"…","service":"…","msg":"…"`.
    static func start(level: Logger.Level, label: String, message: String) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(320)
        line.append(contentsOf: #"{"ts":""#.utf8)
        appendTimestamp(to: &line)
        line.append(contentsOf: #"","level":""#.utf8)
        line.append(contentsOf: level.rawValue.utf8)
        line.append(contentsOf: #"","service":"#.utf8)
        line.appendJSONStringLiteral(label)
        line.append(contentsOf: #","msg":"#.utf8)
        line.appendJSONStringLiteral(message)
        return line
    }

    /// `,"key":` after the line so far. The fixed fields keep their meaning: a clashing key is
    /// renamed (`meta.msg`), not written twice.
    static func appendKey(_ key: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: ","))
        line.appendJSONStringLiteral(isReserved(key) ? "meta." + key : key)
        line.append(UInt8(ascii: ":"))
    }

    /// The fixed fields' keys (compared, not hashed: this runs for every field of every line).
    static func isReserved(_ key: String) -> Bool {
        switch key {
        case "ts", "level", "service", "msg", "source": true
        default: false
        }
    }

    static func append(_ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        switch value {
        case .string(let text): line.appendJSONStringLiteral(text)
        case .stringConvertible(let convertible): line.appendJSONStringLiteral(convertible.description)
        case .array(let values):
            line.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                append(element, to: &line)
            }
            line.append(UInt8(ascii: "]"))
        case .dictionary(let values):
            line.append(UInt8(ascii: "{"))
            for (index, (key, element)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                line.appendJSONStringLiteral(key)
                line.append(UInt8(ascii: ":"))
                append(element, to: &line)
            }
            line.append(UInt8(ascii: "}"))
        }
    }

    /// The wall-clock time, `2026-11-21T18:04:05.123` and a `Z`, written as digits straight
    /// into the line. The date comes from the day number by arithmetic (the proleptic Gregorian
    /// calendar's 400-year cycle of 146,097 days, years counted from March so that the leap day
    /// comes last), not from `gmtime_r`, which takes the C library's time-zone lock per call.
    static func appendTimestamp(to line: inout [UInt8]) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let (year, month, day, secondOfDay) = civil(secondsSinceEpoch: Int(spec.tv_sec))
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                line.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        line.append(UInt8(ascii: "-"))
        digits(month, 2)
        line.append(UInt8(ascii: "-"))
        digits(day, 2)
        line.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        line.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        line.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        line.append(UInt8(ascii: "."))
        digits(spec.tv_nsec / 1_000_000, 3)
        line.append(UInt8(ascii: "Z"))
    }

    /// Year, month (1-12), day (1-31) and second of the day (UTC) of a time in seconds since
    /// 1970-01-01T00:00:00Z.
    static func civil(secondsSinceEpoch seconds: Int) -> (year: Int, month: Int, day: Int, secondOfDay: Int) {
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            days -= 1
            secondOfDay += 86_400
        }
        let (year, month, day) = CivilDate.date(ofDay: days)
        return (year, month, day, secondOfDay)
    }
}

/// A field of a line given to ``JSONLogHandler/log(level:_:fields:)`` or
/// `Logger.log(_:_:fields:)`: a key and its text.
public struct LogField: Sendable {
    public let key: String
    public let value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

extension Logger {
    /// Logs `message` at `level` with `fields`, as `log(level:_:metadata:)` would, but without
    /// building swift-log's metadata dictionary when the handler is ``JSONLogHandler`` (the
    /// gateway's access log writes one such line per request).
    public func log(_ level: Logger.Level, _ message: String, fields: [LogField]) {
        guard level >= logLevel else { return }
        if let json = handler as? JSONLogHandler {
            json.log(level: level, message, fields: fields)
        } else {
            var metadata = Logger.Metadata()
            for field in fields { metadata[field.key] = .string(field.value) }
            log(level: level, "\(message)", metadata: metadata)
        }
    }
}
