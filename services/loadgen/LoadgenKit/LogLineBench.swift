import Logging
import ServiceKit

#if canImport(Glibc)
    import Glibc
#endif

/// `loadgen log-lines`: what one access-log line costs the thread that writes it, both ways the
/// gateway can write it, in turn, in one process: through swift-log (a copy of the logger with
/// the request id in its metadata, then a metadata dictionary per line) and straight to the
/// JSON handler as fields (``JSONLogHandler/log(level:_:fields:)``, what the gateway does).
/// The lines go to `/dev/null` through the same buffered output as standard output.
///
/// Thread CPU time, not wall time, and the two ways alternate in batches within each round, so
/// a shared machine's changes of speed fall on both alike.
struct LogLineBench: Sendable {
    var lines = 200_000
    var rounds = 3

    struct Round: Sendable {
        /// Nanoseconds of thread CPU per line: through swift-log, and as fields.
        var swiftLog = 0.0
        var fields = 0.0
    }

    func run() -> [Round] {
        let null = open("/dev/null", O_WRONLY)
        defer { close(null) }
        let output = LogOutput(fileDescriptor: null)
        let handler = JSONLogHandler(label: "gateway", level: .info, output: output)
        let logger = Logger(label: "gateway") { _ in handler }
        let requestId = "0b7c3f9e-5a41-4d2b-9c8e-2f6a1d3b7e45"
        let batch = 1_000
        var results: [Round] = []
        for _ in 0..<rounds {
            var round = Round()
            for _ in 0..<(lines / batch) {
                round.swiftLog += Self.threadNanoseconds {
                    for index in 0..<batch {
                        var scoped = logger
                        scoped[metadataKey: "requestId"] = .string(requestId)
                        scoped.info(
                            "http",
                            metadata: [
                                "method": "GET", "path": "/v1/currencies", "status": .string(String(200 + index % 2)),
                                "ms": "0.42",
                            ])
                    }
                }
                round.fields += Self.threadNanoseconds {
                    for index in 0..<batch {
                        let fields = [
                            LogField("method", "GET"), LogField("ms", "0.42"), LogField("path", "/v1/currencies"),
                            LogField("requestId", requestId), LogField("status", String(200 + index % 2)),
                        ]
                        if handler.logLevel <= .info { handler.log(level: .info, "http", fields: fields) }
                    }
                }
            }
            let count = Double(lines / batch * batch)
            round.swiftLog /= count
            round.fields /= count
            results.append(round)
        }
        output.flush()
        return results
    }

    /// The calling thread's CPU time spent in `body`, in nanoseconds.
    static func threadNanoseconds(_ body: () -> Void) -> Double {
        func now() -> Double {
            var spec = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
            return Double(spec.tv_sec) * 1e9 + Double(spec.tv_nsec)
        }
        let start = now()
        body()
        return now() - start
    }

    func report(_ rounds: [Round]) -> String {
        var text = "access-log line, thread CPU ns per line (\(lines) lines each way per round, to /dev/null):\n\n"
        text += "| round | through swift-log | as fields | fields / swift-log |\n|---:|---:|---:|---:|\n"
        for (index, round) in rounds.enumerated() {
            text += "| \(index + 1) | \(Int(round.swiftLog.rounded())) | \(Int(round.fields.rounded())) | "
            text += "\(Int((100 * round.fields / max(round.swiftLog, 1)).rounded()))% |\n"
        }
        return text
    }
}
