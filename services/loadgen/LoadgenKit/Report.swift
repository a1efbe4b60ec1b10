import Foundation

/// Formats results as a table for people and JSON for tools.
enum Report {
    static func table(_ results: [RunResult], payloadBytes: Int?) -> String {
        let width = caseWidth(results)
        var lines = [
            "",
            "case".padded(width) + "round trips/s".leftPadded(14) + "p50 µs".leftPadded(10) + "p99 µs".leftPadded(10)
                + "max µs".leftPadded(10) + cpuHeader(results),
            String(repeating: "-", count: width + 44 + cpuHeader(results).count),
        ]
        for result in results {
            lines.append(
                result.name.padded(width) + String(format: "%.0f", result.rate).leftPadded(14)
                    + latency(Double(result.p50), of: result) + latency(Double(result.p99), of: result)
                    + latency(Double(result.max), of: result)
                    + cpuCell(results, result.hubCPUMicros))
        }
        if let raw = results.first(where: isRaw100) {
            lines.append("")
            for result in results where result.name != raw.name && result.name.hasSuffix("100 in flight") {
                lines.append(String(format: "%@: %.0f%% of the raw rate", result.name, 100 * result.rate / raw.rate))
            }
        }
        lines += ["", footer(payloadBytes: payloadBytes)]
        return lines.joined(separator: "\n")
    }

    /// Several rounds of the same cases: for each case the median of its rounds and their range,
    /// then each case's share of the raw rate taken within each round, as median and range.
    static func rounds(_ rounds: [[RunResult]], payloadBytes: Int?) -> String {
        guard let first = rounds.first, rounds.allSatisfy({ $0.map(\.name) == first.map(\.name) }) else {
            return "(the rounds ran different cases)"
        }
        let width = caseWidth(first)
        var lines = [
            "", "median of \(rounds.count) rounds; the range is the slowest and the fastest round", "",
            "case".padded(width) + "round trips/s".leftPadded(14) + "range".leftPadded(20) + "p50 µs".leftPadded(10)
                + "p99 µs".leftPadded(10) + cpuHeader(first),
            String(repeating: "-", count: width + 54 + cpuHeader(first).count),
        ]
        for index in first.indices {
            let runs = rounds.map { $0[index] }
            let rates = runs.map(\.rate)
            let range = String(format: "%.0f-%.0f", rates.min() ?? 0, rates.max() ?? 0)
            let cpu = runs.compactMap(\.hubCPUMicros)
            lines.append(
                first[index].name.padded(width) + String(format: "%.0f", median(rates)).leftPadded(14)
                    + range.leftPadded(20) + latency(median(runs.map { Double($0.p50) }), of: first[index])
                    + latency(median(runs.map { Double($0.p99) }), of: first[index])
                    + cpuCell(first, cpu.isEmpty ? nil : median(cpu)))
        }
        if let rawIndex = first.firstIndex(where: isRaw100) {
            lines.append("")
            for index in first.indices where index != rawIndex && first[index].name.hasSuffix("100 in flight") {
                let shares = rounds.map { 100 * $0[index].rate / $0[rawIndex].rate }
                lines.append(
                    String(
                        format: "%@: %.0f%% of the raw rate (rounds: %@)", first[index].name, median(shares),
                        shares.map { String(format: "%.0f%%", $0) }.joined(separator: ", ")))
            }
        }
        lines += ["", footer(payloadBytes: payloadBytes)]
        return lines.joined(separator: "\n")
    }

    /// A latency cell; "-" for a case that times no round trips (the broker's rules alone).
    static func latency(_ micros: Double, of result: RunResult) -> String {
        (result.max == 0 ? "-" : String(format: "%.0f", micros)).leftPadded(10)
    }

    /// The column of the broker's CPU time per round trip, when a case has it.
    static func cpuHeader(_ results: [RunResult]) -> String {
        results.contains { $0.hubCPUMicros != nil } ? "hub CPU µs/trip".leftPadded(17) : ""
    }

    static func cpuCell(_ results: [RunResult], _ micros: Double?) -> String {
        guard !cpuHeader(results).isEmpty else { return "" }
        return (micros.map { String(format: "%.2f", $0) } ?? "-").leftPadded(17)
    }

    /// The case column is as wide as the longest name, so that the figures line up.
    static func caseWidth(_ results: [RunResult]) -> Int { max(62, (results.map(\.name.count).max() ?? 0) + 2) }

    /// The last line of a report: what was sent, on how many cores, and when.
    static func footer(payloadBytes: Int?) -> String {
        let payload = payloadBytes.map { "payload \($0) bytes; " } ?? ""
        return "\(payload)\(ProcessInfo.processInfo.activeProcessorCount) cores; \(Date())"
    }

    /// The raw DEALER-ROUTER case at 100 in flight, which shares are taken against.
    static func isRaw100(_ result: RunResult) -> Bool {
        result.name.hasPrefix("raw DEALER-ROUTER (no broker)") && result.name.hasSuffix("100 in flight")
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func json(_ results: [RunResult]) throws -> Data {
        let rows = results.map { result in
            var row: [String: Any] = [
                "case": result.name, "roundTripsPerSecond": Int(result.rate), "p50Micros": Int(result.p50),
                "p99Micros": Int(result.p99), "maxMicros": Int(result.max),
            ]
            row["hubCPUMicrosPerTrip"] = result.hubCPUMicros
            return row
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
