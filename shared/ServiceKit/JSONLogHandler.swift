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
        // Fields from the handler, the provider and the call, later ones winning; written in
        // key order. A small array sorted once costs less than merging dictionaries per line.
        var fields: [(key: String, rank: Int, value: Logger.Metadata.Value)] = []
        fields.reserveCapacity(metadata.count + (event.metadata?.count ?? 0) + 2)
        for (key, value) in metadata { fields.append((key, 0, value)) }
        if let provided = metadataProvider?.get() { for (key, value) in provided { fields.append((key, 1, value)) } }
        if let extra = event.metadata { for (key, value) in extra { fields.append((key, 2, value)) } }
        fields.sort { $0.key != $1.key ? $0.key < $1.key : $0.rank < $1.rank }

        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: #"{"ts":""#.utf8)
        Self.appendTimestamp(to: &line)
        line.append(contentsOf: #"","level":""#.utf8)
        line.append(contentsOf: event.level.rawValue.utf8)
        line.append(contentsOf: #"","service":"#.utf8)
        line.appendJSONStringLiteral(label)
        line.append(contentsOf: #","msg":"#.utf8)
        line.appendJSONStringLiteral(event.message.description)
        for (index, field) in fields.enumerated() {
            // Of two fields with one key, the later source's.
            if index + 1 < fields.count && fields[index + 1].key == field.key { continue }
            line.append(UInt8(ascii: ","))
            // The fixed fields keep their meaning; a clashing metadata key is renamed, not duplicated.
            line.appendJSONStringLiteral(Self.reserved.contains(field.key) ? "meta." + field.key : field.key)
            line.append(UInt8(ascii: ":"))
            Self.append(field.value, to: &line)
        }
        if event.level >= .error {
            line.append(contentsOf: #","source":"#.utf8)
            line.appendJSONStringLiteral("\(event.file):\(event.line)")
        }
        line.append(contentsOf: "}\n".utf8)
        output.write(line, urgent: event.level >= .error)
    }

    static let reserved: Set<String> = ["ts", "level", "service", "msg", "source"]

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
    /// into the line.
    static func appendTimestamp(to line: inout [UInt8]) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
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
        digits(Int(parts.tm_year) + 1900, 4)
        line.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        line.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        line.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        line.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        line.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        line.append(UInt8(ascii: "."))
        digits(spec.tv_nsec / 1_000_000, 3)
        line.append(UInt8(ascii: "Z"))
    }
}
