import Prometheus
import Synchronization

/// What a worker's operations did, for its `/metrics`: requests by operation and outcome, and
/// how long they took.
///
/// `backplane_operations_total{service,operation,outcome}` counts every request the service
/// answered (`outcome` is `ok` or the error code, e.g. `invalid_argument`);
/// `backplane_operation_duration_seconds{service,operation}` is their handling time.
public final class OperationMetrics: Sendable {
    /// The registry the metrics are in (the admin port emits it).
    public let registry: PrometheusCollectorRegistry
    private let service: String
    /// The counters and histograms made so far, by operation and outcome: a request looks them
    /// up here rather than in the registry (one lock, no label arrays).
    private let counters = Mutex<[String: Counter]>([:])
    private let durations = Mutex<[String: DurationHistogram]>([:])

    /// The buckets of the duration histogram: 0.5 ms to 10 s.
    static let buckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2.5), .seconds(10),
    ]

    public init(service: String, registry: PrometheusCollectorRegistry) {
        self.service = service
        self.registry = registry
    }

    /// Records one answered request.
    public func record(operation: String, outcome: String, duration: Duration) {
        let key = operation + "\u{0}" + outcome
        let counter = counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = registry.makeCounter(
                descriptor: .init(
                    namespace: "backplane", metricName: "operations", unitName: "total",
                    helpText: "requests answered, by operation and outcome (ok or the error code)"),
                labels: [("service", service), ("operation", operation), ("outcome", outcome)])
            counters[key] = counter
            return counter
        }
        counter.increment()
        let histogram = durations.withLock { durations in
            if let histogram = durations[operation] { return histogram }
            let histogram = registry.makeDurationHistogram(
                descriptor: .init(
                    namespace: "backplane", metricName: "operation_duration", unitName: "seconds",
                    helpText: "time from a request's arrival to its answer, by operation"),
                labels: [("service", service), ("operation", operation)], buckets: Self.buckets)
            durations[operation] = histogram
            return histogram
        }
        histogram.record(duration)
    }
}
