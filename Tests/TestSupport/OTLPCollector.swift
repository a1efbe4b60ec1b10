import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The OTLP stand-in collector (`deploy/otlp-standin`) as a process of a test's own, and the
/// spans it has received.
public final class OTLPCollector: @unchecked Sendable {
    /// Where it listens; an exporter's endpoint is ``endpoint``.
    public let port: Int
    /// Its output (what it received, what it refused).
    public let log: URL
    private let process: Process

    /// `http://127.0.0.1:<port>`, the base URL an exporter is given.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, process: Process, log: URL) {
        self.port = port
        self.process = process
        self.log = log
    }

    /// Starts one on a free port.
    public static func start() async throws -> OTLPCollector {
        let port = try TestPorts.free()
        let (process, log) = try await PythonStandin.start(
            "otlp-standin", port: port, environment: [:], banner: "otlp-standin on")
        return OTLPCollector(port: port, process: process, log: log)
    }

    /// Stops it.
    public func stop() { process.terminate() }

    /// Every span received so far (of `traceId` only, when given), in arrival order.
    public func spans(traceId: String? = nil) async -> [CollectedSpan] {
        guard let url = URL(string: "\(endpoint)/_standin/spans"),
            let (data, _) = try? await URLSession.shared.data(from: url),
            let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return list.compactMap(CollectedSpan.init).filter { traceId == nil || $0.traceId == traceId }
    }

    /// The spans received once `ready` holds for them, or whatever arrived within `timeout`.
    public func spans(
        traceId: String? = nil, within timeout: Duration = .seconds(30), until ready: ([CollectedSpan]) -> Bool
    ) async -> [CollectedSpan] {
        let deadline = ContinuousClock.now + timeout
        var spans = await self.spans(traceId: traceId)
        while !ready(spans), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
            spans = await self.spans(traceId: traceId)
        }
        return spans
    }

    /// Whether it refused a request (a body that is not a valid OTLP export).
    public var refusedAny: Bool { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("refused") }
}

/// A span as the collector stand-in recorded it (OTLP's JSON: hex ids, numeric kind).
public struct CollectedSpan: CustomStringConvertible, Sendable {
    /// The resource's `service.name`.
    public let service: String
    public let name: String
    /// OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
    public let kind: Int
    public let traceId: String
    public let spanId: String
    /// Nil for a root span.
    public let parentSpanId: String?
    /// Each attribute's value as text (strings as they are, integers in decimal, booleans).
    public let attributes: [String: String]
    /// OTLP's status code: 0 unset, 1 ok, 2 error.
    public let statusCode: Int
    /// The events' names with their attributes.
    public let events: [(name: String, attributes: [String: String])]
    /// The trace state sent on.
    public let traceState: String?

    init?(_ object: [String: Any]) {
        guard let service = object["service"] as? String, let name = object["name"] as? String,
            let kind = object["kind"] as? Int, let traceId = object["traceId"] as? String,
            let spanId = object["spanId"] as? String
        else { return nil }
        self.service = service
        self.name = name
        self.kind = kind
        self.traceId = traceId
        self.spanId = spanId
        let parent = object["parentSpanId"] as? String
        self.parentSpanId = parent?.isEmpty == false ? parent : nil
        self.attributes = Self.values(object["attributes"])
        self.statusCode = (object["status"] as? [String: Any])?["code"] as? Int ?? 0
        self.events = (object["events"] as? [[String: Any]] ?? []).map {
            (($0["name"] as? String) ?? "", Self.values($0["attributes"]))
        }
        let state = object["traceState"] as? String
        self.traceState = state?.isEmpty == false ? state : nil
    }

    private static func values(_ list: Any?) -> [String: String] {
        var values: [String: String] = [:]
        for attribute in list as? [[String: Any]] ?? [] {
            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any] else {
                continue
            }
            values[key] =
                (value["stringValue"] as? String) ?? (value["intValue"] as? String)
                ?? (value["boolValue"] as? Bool).map { "\($0)" } ?? (value["doubleValue"] as? Double).map { "\($0)" }
        }
        return values
    }

    public var description: String { "\(service) \(kind) '\(name)' \(spanId) ← \(parentSpanId ?? "-")" }
}
