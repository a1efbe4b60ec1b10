import Foundation

/// Formats results as a table for people and JSON for tools.
enum Report {
    static func table(_ results: [RunResult], payloadBytes: Int?) -> String {
        // The case column is as wide as the longest name, so that the figures line up.
        let width = max(62, (results.map(\.name.count).max() ?? 0) + 2)
        var lines = [
            "",
            "case".padded(width) + "round trips/s".leftPadded(14) + "p50 µs".leftPadded(10) + "p99 µs".leftPadded(10)
                + "max µs".leftPadded(10),
            String(repeating: "-", count: width + 44),
        ]
        for result in results {
            lines.append(
                result.name.padded(width) + String(format: "%.0f", result.rate).leftPadded(14)
                    + "\(result.p50)".leftPadded(10)
                    + "\(result.p99)".leftPadded(10) + "\(result.max)".leftPadded(10))
        }
        if let raw = results.first(where: {
            $0.name.hasPrefix("raw DEALER-ROUTER (no broker)") && $0.name.hasSuffix("100 in flight")
        }) {
            lines.append("")
            for result in results where result.name != raw.name && result.name.hasSuffix("100 in flight") {
                lines.append(String(format: "%@: %.0f%% of the raw rate", result.name, 100 * result.rate / raw.rate))
            }
        }
        lines.append("")
        let payload = payloadBytes.map { "payload \($0) bytes; " } ?? ""
        lines.append("\(payload)\(ProcessInfo.processInfo.activeProcessorCount) cores; \(Date())")
        return lines.joined(separator: "\n")
    }

    static func json(_ results: [RunResult]) throws -> Data {
        let rows = results.map {
            [
                "case": $0.name, "roundTripsPerSecond": Int($0.rate), "p50Micros": Int($0.p50),
                "p99Micros": Int($0.p99), "maxMicros": Int($0.max),
            ]
                as [String: Any]
        }
        return try JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted, .sortedKeys])
    }
}

extension String {
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

/// The string value of a top-level field of a JSON object body, if there is one.
func jsonField(_ name: String, in body: String) -> String? {
    (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?[name] as? String
}
