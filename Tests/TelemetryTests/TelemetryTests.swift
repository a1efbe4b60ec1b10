import Foundation
import Logging
import ServiceLifecycle
import Telemetry
import TestSupport
import Testing
import Tracing

@Suite("W3C trace context")
struct TraceParentTests {
    let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test("a valid traceparent parses and writes back the same; the trace id is its 32 hex digits")
    func roundTrip() throws {
        let parent = try #require(TraceParent(valid))
        #expect(parent.traceIdHigh == 0x4bf9_2f35_77b3_4da6 && parent.traceIdLow == 0xa3ce_929d_0e0e_4736)
        #expect(parent.spanId == 0x00f0_67aa_0ba9_02b7 && parent.sampled)
        #expect(parent.header == valid)
        #expect(parent.traceIdHex == "4bf92f3577b34da6a3ce929d0e0e4736" && parent.spanIdHex == "00f067aa0ba902b7")
        #expect(TraceParent.traceId(of: valid) == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(TraceParent(valid.replacingOccurrences(of: "-01", with: "-00"))?.sampled == false)
    }

    @Test("what W3C says a receiver must refuse is no trace context")
    func refusals() {
        for header in [
            "", "garbage",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero parent id
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // version 00 with more
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",  // short trace id
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
        ] {
            #expect(TraceParent(header) == nil, "\(header)")
            #expect(TraceParent.traceId(of: header) == nil, "\(header)")
        }
        // A later version may add fields after a '-'; the known part is read.
        #expect(TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later")?.spanId == 0x00f0_67aa_0ba9_02b7)
        #expect(TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x") == nil)
    }

    @Test("tracestate is passed on when printable and at most 512 characters")
    func traceState() {
        #expect(TraceState.sanitized("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE") == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        #expect(TraceState.sanitized("a=\u{1}") == nil)
        #expect(TraceState.sanitized(String(repeating: "a", count: 513)) == nil)
        #expect(TraceState.sanitized(nil) == nil)
    }
}

@Suite("sampler names")
struct SamplerTests {
    @Test("every OTEL_TRACES_SAMPLER name we document is taken; a ratio outside 0...1 and other samplers are not")
    func names() {
        for name in Traces.samplerNames { #expect(Traces.sampler(named: name, argument: "0.5") != nil, "\(name)") }
        #expect(Traces.sampler(named: "", argument: nil) != nil, "empty: the default")
        #expect(Traces.sampler(named: "traceidratio", argument: "2") == nil)
        #expect(Traces.sampler(named: "parentbased_traceidratio", argument: "half") == nil)
        #expect(Traces.sampler(named: "jaeger_remote", argument: nil) == nil)
    }
}

/// swift-otel's tracer behind ``Traces``, exporting over OTLP/HTTP (protobuf) to the collector
/// stand-in, a process of its own; the spans are read back from it.
@Suite("tracer and OTLP export (real collector stand-in)", .serialized)
struct TracerExportTests {
    static let remote = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// Runs `body` with a tracer of the test's own (not installed) exporting to a fresh stand-in,
    /// then flushes and stops the exporter; answers the spans the stand-in received.
    private func exported(
        sampler: String = "parentbased_always_on", _ body: (any Tracer) async throws -> Void
    ) async throws -> (spans: [CollectedSpan], collector: OTLPCollector) {
        let collector = try await OTLPCollector.start()
        let logger = Logger(label: "trace-export")
        let (tracer, service) = try Traces.makeBackend(
            Traces.Export(
                endpoint: collector.endpoint, serviceName: "telemetry-tests", resource: ["service.version": "1.0"],
                sampler: try #require(Traces.sampler(named: sampler, argument: nil)),
                scheduleDelay: .milliseconds(50)),
            logger: logger)
        let group = ServiceGroup(services: [service], logger: logger)
        let running = Task { try await group.run() }
        try await body(tracer)
        await group.triggerGracefulShutdown()
        try await running.value
        return (await collector.spans(), collector)
    }

    @Test("a child of a remote parent keeps its trace and state, names its parent, and is exported once; the traceparent it passes on is its own")
    func childOfRemote() async throws {
        var passedOn: String?
        let (spans, collector) = try await exported { tracer in
            let span = try #require(
                Traces.startSpan("child", kind: .server, continuing: Self.remote, tracer: tracer))
            let child = tracer.startSpan("grandchild", context: span.context, ofKind: .client)
            passedOn = Traces.traceparent(of: span)
            child.end()
            span.end()
            span.end()
        }
        defer { collector.stop() }
        #expect(spans.count == 2, "\(spans)")
        let child = try #require(spans.first { $0.name == "child" })
        let grandchild = try #require(spans.first { $0.name == "grandchild" })
        #expect(child.service == "telemetry-tests" && child.kind == 2)
        #expect(child.traceId == "4bf92f3577b34da6a3ce929d0e0e4736" && child.parentSpanId == "00f067aa0ba902b7")
        #expect(grandchild.traceId == child.traceId && grandchild.parentSpanId == child.spanId)
        #expect(passedOn == "00-4bf92f3577b34da6a3ce929d0e0e4736-\(child.spanId)-01")
        #expect(!collector.refusedAny)
    }

    @Test("a trace its caller did not sample is carried on but not exported; a span without parent starts a new trace")
    func unsampledAndRoot() async throws {
        var quietParent: String?
        let (spans, collector) = try await exported { tracer in
            let quiet = try #require(
                Traces.startSpan(
                    "quiet", continuing: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", tracer: tracer))
            #expect(!quiet.isRecording)
            quietParent = Traces.traceparent(of: quiet)
            quiet.end()
            try #require(Traces.startSpan("root", continuing: nil, tracer: tracer)).end()
            try #require(Traces.startSpan("garbage parent", continuing: "not-a-traceparent", tracer: tracer)).end()
        }
        defer { collector.stop() }
        let parent = try #require(quietParent.flatMap { TraceParent($0) })
        #expect(parent.traceIdHex == "4bf92f3577b34da6a3ce929d0e0e4736" && !parent.sampled)
        #expect(spans.map(\.name).sorted() == ["garbage parent", "root"], "\(spans)")
        #expect(spans.allSatisfy { $0.parentSpanId == nil })
        #expect(Set(spans.map(\.traceId)).count == 2)
    }

    @Test("attributes keep their types; a failure is an exception event with the error's type, never its text, and an error status")
    func attributesAndFailure() async throws {
        struct CardDeclined: Error, CustomStringConvertible {
            var description: String { "card 4242424242424242 declined" }
        }
        let (spans, collector) = try await exported { tracer in
            let span = try #require(Traces.startSpan("GET /v1/x", kind: .server, continuing: nil, tracer: tracer))
            span.attributes["http.response.status_code"] = 200
            span.attributes["url.path"] = "/v1/x"
            span.attributes["ok"] = true
            do {
                try await Traces.within(span) { _ in throw CardDeclined() }
            } catch {}
        }
        defer { collector.stop() }
        let span = try #require(spans.first, "\(spans)")
        #expect(span.attributes["http.response.status_code"] == "200" && span.attributes["url.path"] == "/v1/x")
        #expect(span.attributes["ok"] == "true")
        #expect(span.statusCode == 2)
        let event = try #require(span.events.first)
        #expect(event.name == "exception" && event.attributes["exception.type"] == "CardDeclined")
        #expect(event.attributes.count == 1 && !event.attributes.values.contains { $0.contains("4242") })
    }

    @Test("a sampler that records nothing exports nothing")
    func alwaysOff() async throws {
        let (spans, collector) = try await exported(sampler: "always_off") { tracer in
            Traces.startSpan("dropped", continuing: nil, tracer: tracer)?.end()
        }
        defer { collector.stop() }
        #expect(spans.isEmpty)
    }
}
