import Foundation
import Prometheus

/// The process's CPU time, resident memory and open file descriptors, read from `/proc/self`
/// each time `/metrics` is scraped (Prometheus' conventional `process_*` names).
enum ProcessMetrics {
    /// Sets the gauges in `registry` to the process's figures now.
    static func update(_ registry: PrometheusCollectorRegistry) {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        {
            // After the command name: state is field 3, utime 14, stime 15, rss (pages) 24.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 22, let user = Double(fields[11]), let system = Double(fields[12]),
                let pages = Double(fields[21])
            {
                registry.makeGauge(
                    descriptor: .init(
                        metricName: "process_cpu", unitName: "seconds_total",
                        helpText: "user and system CPU time of this process"),
                    labels: []
                ).set((user + system) / ticks)
                registry.makeGauge(
                    descriptor: .init(
                        metricName: "process_resident_memory", unitName: "bytes",
                        helpText: "resident memory of this process"),
                    labels: []
                ).set(pages * Double(sysconf(Int32(_SC_PAGESIZE))))
            }
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            registry.makeGauge(
                descriptor: .init(
                    metricName: "process_open", unitName: "fds", helpText: "open file descriptors of this process"),
                labels: []
            ).set(Double(descriptors.count))
        }
    }
}
