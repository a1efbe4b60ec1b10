import Histogram

/// Round trips and their latencies (microseconds) for one measured run.
public struct RunResult: Sendable {
    /// What was measured, e.g. `broker, 4 workers, 100 in flight`.
    public let name: String
    /// Completed round trips in the measured window.
    public let count: Int
    /// Length of the measured window in seconds.
    public let seconds: Double
    /// Latency percentiles in microseconds.
    public let p50: UInt64
    public let p99: UInt64
    public let max: UInt64
    /// CPU time the broker's thread spent per round trip, in microseconds, when
    /// the case has one: its whole run's thread CPU time over the replies it passed on.
    public var hubCPUMicros: Double?

    /// Round trips per second.
    public var rate: Double { Double(count) / seconds }
}

/// Collects latencies in an HdrHistogram (microseconds, 3 significant digits).
struct LatencyRecorder {
    private var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    private(set) var count = 0

    mutating func record(nanoseconds: UInt64) {
        _ = histogram.record(Swift.max(1, nanoseconds / 1000))
        count += 1
    }

    /// Adds what `other` recorded.
    mutating func merge(_ other: LatencyRecorder) {
        histogram.add(other.histogram)
        count += other.count
    }

    func result(name: String, seconds: Double) -> RunResult {
        RunResult(
            name: name, count: count, seconds: seconds, p50: histogram.valueAtPercentile(50),
            p99: histogram.valueAtPercentile(99), max: histogram.max)
    }
}
