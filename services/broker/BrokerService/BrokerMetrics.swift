import Majordomo
import Prometheus
import Synchronization

/// The broker's `/metrics` on its admin port, read from the broker at each scrape (the metrics
/// are listed in docs/operating.md).
final class BrokerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let broker: Broker
    /// What each counter stood at when last scraped: counters only move forward, by the difference.
    private let last = Mutex<[String: Int]>([:])

    init(broker: Broker) {
        self.broker = broker
    }

    func update() async {
        let statistics = broker.statistics
        for (name, value, help) in [
            ("replies", statistics.replies, "replies forwarded from workers to clients"),
            ("expired", statistics.expired, "requests answered unavailable: no worker in time or the queue full"),
            ("abandoned", statistics.abandoned, "requests lost with the worker that held them"),
            ("malformed", statistics.malformed, "messages dropped as malformed"),
            ("disconnects", statistics.disconnects, "DISCONNECTs sent to workers"),
            ("expired_workers", statistics.expiredWorkers, "workers expired for missing heartbeats"),
        ] {
            advance(counter(name, help: help, labels: []), key: name, to: value)
        }
        for figures in await broker.serviceFigures() {
            let labels = [("service", figures.service)]
            advance(
                counter("requests", help: "client requests accepted into the service's queue", labels: labels),
                key: "requests\u{0}" + figures.service, to: figures.accepted)
            gauge("queued", help: "requests waiting for a worker", labels: labels).set(Double(figures.queued))
            gauge("workers", help: "live workers of the service", labels: labels).set(Double(figures.workers))
        }
    }

    private func advance(_ counter: Counter, key: String, to value: Int) {
        let delta = last.withLock { last in
            defer { last[key] = value }
            return value - (last[key] ?? 0)
        }
        if delta > 0 { counter.increment(by: Int64(delta)) }
    }

    private func counter(_ name: String, help: String, labels: [(String, String)]) -> Counter {
        registry.makeCounter(
            descriptor: .init(namespace: "backplane", subsystem: "broker", metricName: name, unitName: "total", helpText: help),
            labels: labels)
    }

    private func gauge(_ name: String, help: String, labels: [(String, String)]) -> Gauge {
        registry.makeGauge(
            descriptor: .init(namespace: "backplane", subsystem: "broker", metricName: name, unitName: "", helpText: help),
            labels: labels)
    }
}
