import Foundation
import Glibc
import Logging
import Synchronization
import Testing

@testable import ServiceKit

/// The batched log output: whole lines, in order, errors at once, the rest on flush.
@Suite("log output: batched lines")
struct LogOutputTests {
    /// A pipe whose read end is non-blocking, so an empty read answers at once.
    final class Pipe: Sendable {
        let read: Int32
        let write: Int32
        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            (read, write) = (ends[0], ends[1])
            _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
        }
        deinit {
            close(read)
            close(write)
        }
        /// Everything written so far.
        func drain() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                bytes += chunk[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    @Test("lines wait for a flush; an error line goes out at once with every line before it, in order")
    func batching() throws {
        let pipe = try Pipe()
        let output = LogOutput(fileDescriptor: pipe.write)
        var handler = JSONLogHandler(label: "test", level: .debug, output: output)
        handler.metadata = ["requestId": "r-1"]
        let logger = Logger(label: "test") { _ in handler }
        logger.info("first")
        logger.debug("second")
        let early = pipe.drain()
        // The background flush may already have run; if it has, both lines are out, whole.
        #expect(early.isEmpty || early.split(separator: "\n").count == 2)
        logger.error("third")
        let all = early + pipe.drain()
        let lines = all.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.map { $0.contains("\"msg\":\"first\"") } == [true, false, false])
        #expect(lines[2].contains("\"msg\":\"third\"") && lines[2].contains("\"level\":\"error\""))
        #expect(lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") && $0.contains("\"requestId\":\"r-1\"") })
    }

    @Test("a flush writes what waits; 64 KiB waiting wakes the writer before its interval")
    func flushAndLimit() throws {
        let pipe = try Pipe()
        // An interval of an hour: whatever is written without a flush was written because
        // 64 KiB waited.
        let output = LogOutput(fileDescriptor: pipe.write, interval: .seconds(3600))
        output.write("one\n", urgent: false)
        #expect(pipe.drain().isEmpty)
        output.flush()
        #expect(pipe.drain() == "one\n")
        let line = String(repeating: "x", count: 1023) + "\n"
        for _ in 0..<(LogOutput.limit / line.utf8.count) { output.write(line, urgent: false) }
        var written = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while written.utf8.count < LogOutput.limit && ContinuousClock.now < deadline {
            written += pipe.drain()
            usleep(5_000)
        }
        #expect(written.utf8.count == LogOutput.limit)
        #expect(written.split(separator: "\n").allSatisfy { $0.count == 1023 })
    }

    @Test("a reader that falls behind costs lines, not waits: they are dropped, counted, and reported in their place")
    func slowReader() throws {
        let pipe = try Pipe()  // nothing reads it until every line is written
        let output = LogOutput(fileDescriptor: pipe.write, capacity: 16 * 1024, label: "gateway")
        let total = 2_000
        for number in 0..<total {
            // 100 bytes a line: 200 KB in all, against a 64 KiB pipe and two 16 KiB buffers.
            let digits = String(number)
            output.write("line " + String(repeating: "0", count: 94 - digits.count) + digits + "\n", urgent: false)
        }
        // Every write returned: the writer thread alone waits for the reader. Read until every
        // line is either out or counted as dropped.
        var text = ""
        var kept: [Int] = []
        var dropped = 0
        var notices: [[String: Any]] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while kept.count + dropped < total && ContinuousClock.now < deadline {
            text += pipe.drain()
            while let end = text.firstIndex(of: "\n") {
                let line = String(text[..<end])
                text.removeSubrange(...end)
                if line.hasPrefix("line ") {
                    kept.append(Int(line.dropFirst(5))!)
                } else {
                    let notice = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    notices.append(notice)
                    dropped += Int(try #require(notice["dropped"] as? String))!
                }
            }
            usleep(2_000)
        }
        #expect(kept.count + dropped == total)
        #expect(dropped > 0 && !kept.isEmpty)
        #expect(kept == kept.sorted() && kept.first == 0)
        #expect(notices.allSatisfy { $0["level"] as? String == "warning" && $0["service"] as? String == "gateway" })
        // Once the reader keeps up, lines go out again, none dropped.
        output.write("after\n", urgent: false)
        output.flush()
        #expect(pipe.drain() == "after\n")
    }

    @Test("a line is one JSON object: fixed fields first, metadata in key order, the call's value winning, text escaped")
    func lineShape() throws {
        let pipe = try Pipe()
        let output = LogOutput(fileDescriptor: pipe.write)
        var handler = JSONLogHandler(
            label: "gate\"way", level: .debug, metadataProvider: Logger.MetadataProvider { ["traceId": "t-1", "b": "provided"] },
            output: output)
        handler.metadata = ["requestId": "r-1", "b": "handler", "msg": "clash"]
        let logger = Logger(label: "test") { _ in handler }
        logger.info("tab\there \"quoted\" \\ \u{1}é", metadata: ["b": "call", "a": ["x", "y"], "n": "\(42)"])
        output.flush()
        let line = pipe.drain()
        #expect(line.hasSuffix("}\n") && line.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["service"] as? String == "gate\"way")
        #expect(object["msg"] as? String == "tab\there \"quoted\" \\ \u{1}é")
        #expect(object["meta.msg"] as? String == "clash")
        #expect(object["b"] as? String == "call")
        #expect(object["a"] as? [String] == ["x", "y"])
        #expect(object["requestId"] as? String == "r-1" && object["traceId"] as? String == "t-1")
        let ts = try #require(object["ts"] as? String)
        #expect(ts.count == 24 && ts.hasSuffix("Z") && ISO8601DateFormatter.withFractions.date(from: ts) != nil)
        // Fixed fields first, then the metadata keys in order, each once.
        let keys = line.split(separator: ",").compactMap { part -> String? in
            guard let colon = part.firstIndex(of: ":"), part.contains("\"") else { return nil }
            let key = part[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "{\""))
            return key
        }
        #expect(Array(keys.prefix(4)) == ["ts", "level", "service", "msg"])
        #expect(line.components(separatedBy: "\"b\":").count == 2)
    }
}

extension LogOutputTests {
    @Test("a line given as fields (the access log's path) is the line swift-log's metadata makes")
    func fieldsLine() throws {
        let pipe = try Pipe()
        let output = LogOutput(fileDescriptor: pipe.write)
        var handler = JSONLogHandler(
            label: "gateway", level: .info, metadataProvider: Logger.MetadataProvider { ["spanId": "s-1"] },
            output: output)
        handler.metadata = ["build": "b-1", "status": "from the handler"]
        let logger = Logger(label: "gateway") { _ in handler }
        let fields = [LogField("status", "200"), LogField("method", "GET"), LogField("path", "/v1/{}"), LogField("msg", "x")]
        logger.info("http", metadata: ["status": "200", "method": "GET", "path": "/v1/{}", "msg": "x"])
        logger.log(.info, "http", fields: fields)
        logger.log(.debug, "below the level", fields: fields)
        output.flush()
        let lines = pipe.drain().split(separator: "\n")
        try #require(lines.count == 2)
        // The same text after the timestamp: fields in key order, the call's value winning over
        // the handler's, a fixed field's key renamed (in the place of its own key).
        let tails = lines.map { $0.drop { $0 != "," } }
        #expect(tails[0] == tails[1])
        #expect(
            tails[1] == #","level":"info","service":"gateway","msg":"http","build":"b-1","method":"GET","meta.msg":"x","path":"/v1/{}","spanId":"s-1","status":"200"}"#)

        // A handler with no metadata of its own: fields given in key order are written as they
        // are; out of order, they are sorted first. Both make swift-log's line.
        let bare = JSONLogHandler(label: "gateway", level: .info, output: output)
        let sorted = [LogField("method", "GET"), LogField("msg", "x"), LogField("path", "/v1/{}"), LogField("status", "200")]
        Logger(label: "gateway") { _ in bare }.info(
            "http", metadata: ["status": "200", "method": "GET", "path": "/v1/{}", "msg": "x"])
        bare.log(level: .info, "http", fields: sorted)
        bare.log(level: .info, "http", fields: sorted.reversed())
        output.flush()
        let bareTails = pipe.drain().split(separator: "\n").map { $0.drop { $0 != "," } }
        #expect(bareTails.count == 3 && Set(bareTails).count == 1)
        #expect(bareTails.first == #","level":"info","service":"gateway","msg":"http","method":"GET","meta.msg":"x","path":"/v1/{}","status":"200"}"#)

        // Through another handler, the fields arrive as metadata.
        let recorded = Recorded()
        let plain = Logger(label: "plain") { _ in recorded }
        plain.log(.notice, "http", fields: fields)
        #expect(recorded.lines.all.withLock { $0 } == ["notice http method=GET msg=x path=/v1/{} status=200"])
    }

    @Test("the timestamp's date and time of day agree with the C library's gmtime_r, leap days and before 1970 included")
    func civilDates() {
        var samples = [0, -1, -86_400, 951_782_400, 951_868_799, 4_107_542_400, 1_796_169_600, 253_402_300_799]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { samples.append(Int.random(in: -2_208_988_800...4_102_444_800, using: &random)) }
        for seconds in samples {
            var time = seconds
            var parts = tm()
            gmtime_r(&time, &parts)
            let civil = JSONLogHandler.civil(secondsSinceEpoch: seconds)
            let expected = (
                Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                Int(parts.tm_hour) * 3600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec)
            )
            #expect(civil == expected, "\(seconds)")
        }
    }

    /// A handler that keeps each line as `level message key=value ...` (keys in order).
    struct Recorded: LogHandler {
        final class Lines: Sendable {
            let all = Mutex<[String]>([])
        }
        let lines = Lines()
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.all.withLock { $0.append((["\(event.level) \(event.message)"] + fields).joined(separator: " ")) }
        }
    }
}

extension ISO8601DateFormatter {
    fileprivate static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
