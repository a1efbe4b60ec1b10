import Foundation

/// Wall-clock and CPU durations of repeated runs, in milliseconds. On a machine shared with other
/// work the wall times grow with the load; the CPU times much less so.
struct Latencies {
    private(set) var milliseconds: [Double] = []
    private(set) var cpuMilliseconds: [Double] = []

    /// Runs `body` `runs` times (after one warm-up run) and records each duration; `cpu` reads the
    /// CPU time (ms) that `body` is charged with.
    static func measure(runs: Int, cpu: () -> Double, _ body: () throws -> Void) rethrows -> Latencies {
        try body()
        var latencies = Latencies()
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let cpuBefore = cpu()
            let took = try clock.measure(body)
            latencies.cpuMilliseconds.append(cpu() - cpuBefore)
            latencies.milliseconds.append(
                Double(took.components.attoseconds) / 1e15 + Double(took.components.seconds) * 1000)
        }
        return latencies
    }

    /// CPU time of the calling thread, in milliseconds.
    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }

    /// User and system time of the child processes waited for so far, in milliseconds.
    static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) * 1000 + Double(usage.ru_utime.tv_usec) / 1000
        return user + Double(usage.ru_stime.tv_sec) * 1000 + Double(usage.ru_stime.tv_usec) / 1000
    }

    /// The `fraction` quantile (nearest rank) of `values`.
    static func quantile(_ fraction: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }

    var p50: Double { Self.quantile(0.5, of: milliseconds) }
    var p95: Double { Self.quantile(0.95, of: milliseconds) }
    var cpuP50: Double { Self.quantile(0.5, of: cpuMilliseconds) }
}
