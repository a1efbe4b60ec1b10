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
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var line = "{\"ts\":\"\(Self.timestamp())\",\"level\":\"\(event.level)\",\"service\":"
        line.appendJSONStringLiteral(label)
        line += ",\"msg\":"
        line.appendJSONStringLiteral("\(event.message)")
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += ","
            // The fixed fields keep their meaning; a clashing metadata key is renamed, not duplicated.
            line.appendJSONStringLiteral(Self.reserved.contains(key) ? "meta." + key : key)
            line += ":"
            Self.append(value, to: &line)
        }
        if event.level >= .error {
            line += ",\"source\":"
            line.appendJSONStringLiteral("\(event.file):\(event.line)")
        }
        line += "}\n"
        output.write(line, urgent: event.level >= .error)
    }

    static let reserved: Set<String> = ["ts", "level", "service", "msg", "source"]

    static func append(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text): line.appendJSONStringLiteral(text)
        case .stringConvertible(let convertible): line.appendJSONStringLiteral(convertible.description)
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                append(element, to: &line)
            }
            line += "]"
        case .dictionary(let values):
            line += "{"
            for (index, (key, element)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { line += "," }
                line.appendJSONStringLiteral(key)
                line += ":"
                append(element, to: &line)
            }
            line += "}"
        }
    }

    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + "\(pad(Int32(spec.tv_nsec / 1_000_000), 3))Z"
    }
}
