import Foundation

/// Wall-clock durations of repeated runs, in milliseconds.
struct Latencies {
    private(set) var milliseconds: [Double] = []

    /// Runs `body` `runs` times (after one warm-up run) and records each duration.
    static func measure(runs: Int, _ body: () throws -> Void) rethrows -> Latencies {
        try body()
        var latencies = Latencies()
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let took = try clock.measure(body)
            latencies.milliseconds.append(
                Double(took.components.attoseconds) / 1e15 + Double(took.components.seconds) * 1000)
        }
        return latencies
    }

    /// The `fraction` quantile (nearest rank).
    func quantile(_ fraction: Double) -> Double {
        let sorted = milliseconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }

    var p50: Double { quantile(0.5) }
    var p95: Double { quantile(0.95) }
}
