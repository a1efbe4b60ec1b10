import Logging
import Synchronization

/// Every log line a logger made, message and metadata rendered as text, to check what a line
/// carries (and what it must not).
public final class CapturedLogs: Sendable {
    let lines = Mutex<[String]>([])

    /// Nothing captured yet.
    public init() {}

    /// A logger at `debug` whose lines land here.
    public func logger() -> Logger {
        var logger = Logger(label: "captured") { _ in Handler(sink: self) }
        logger.logLevel = .debug
        return logger
    }

    /// The lines so far: level, message, then the metadata sorted by key.
    public var all: [String] { lines.withLock { $0 } }

    struct Handler: LogHandler {
        let sink: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let text =
                "\(event.level) \(event.message) "
                + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: " ")
            sink.lines.withLock { $0.append(text) }
        }
    }
}
