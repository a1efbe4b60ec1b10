import Foundation
import Telemetry
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

@Suite("sampler")
struct SamplerTests {
    @Test("OTEL_TRACES_SAMPLER names; parent-based follows the parent; a ratio decides by trace id")
    func sampling() throws {
        let parentBased = try #require(Sampler(name: "parentbased_always_on", argument: nil))
        #expect(parentBased.samples(traceIdLow: 1, parentSampled: false) == false)
        #expect(parentBased.samples(traceIdLow: 1, parentSampled: nil) == true)
        let always = try #require(Sampler(name: "always_on", argument: nil))
        #expect(always.samples(traceIdLow: 1, parentSampled: false) == true)
        let never = try #require(Sampler(name: "parentbased_always_off", argument: nil))
        #expect(never.samples(traceIdLow: 1, parentSampled: nil) == false)
        #expect(never.samples(traceIdLow: 1, parentSampled: true) == true)
        let half = try #require(Sampler(name: "traceidratio", argument: "0.5"))
        #expect(half.samples(traceIdLow: 0, parentSampled: nil))
        #expect(!half.samples(traceIdLow: 0x00FF_FFFF_FFFF_FFFF, parentSampled: nil))
        #expect(Sampler(name: "traceidratio", argument: "2") == nil)
        #expect(Sampler(name: "jaeger_remote", argument: nil) == nil)
    }
}

@Suite("tracer, buffer and OTLP/JSON")
struct TracerTests {
    @Test("a child span keeps the remote parent's trace, names it as parent, and is exported once when it ends")
    func childOfRemote() throws {
        let buffer = SpanBuffer(capacity: 10)
        let tracer = OTLPTracer(buffer: buffer)
        var context = InstrumentationContext.topLevel
        let remote = try #require(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        context.traceContext = TraceContext(parent: remote, state: "k=v", isRemote: true)
        let span = tracer.startSpan("child", context: context, ofKind: .server)
        let child = tracer.startSpan("grandchild", context: span.context, ofKind: .client)
        #expect(span.identity.traceIdHigh == remote.traceIdHigh && span.identity.traceIdLow == remote.traceIdLow)
        #expect(span.identity.spanId != remote.spanId && span.identity.sampled)
        #expect(span.context.traceContext?.state == "k=v")
        #expect(child.identity.traceIdLow == remote.traceIdLow)
        child.end()
        span.end()
        span.end()
        let finished = buffer.take(upTo: 10)
        #expect(finished.count == 2)
        #expect(finished[0].parentSpanId == span.identity.spanId && finished[0].name == "grandchild")
        #expect(finished[1].parentSpanId == remote.spanId && finished[1].traceState == "k=v")
    }

    @Test("a trace its caller did not sample is carried on but not recorded; a root span starts a new trace")
    func unsampledAndRoot() throws {
        let buffer = SpanBuffer(capacity: 10)
        let tracer = OTLPTracer(buffer: buffer)
        var context = InstrumentationContext.topLevel
        context.traceContext = TraceContext(
            parent: try #require(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")))
        let quiet = tracer.startSpan("quiet", context: context, ofKind: .server)
        #expect(!quiet.isRecording && !quiet.identity.sampled)
        #expect(quiet.traceparent.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-") && quiet.traceparent.hasSuffix("-00"))
        quiet.end()
        let root = tracer.startSpan("root", context: .topLevel, ofKind: .server)
        #expect(root.isRecording && TraceParent(root.traceparent) == root.identity)
        root.end()
        let finished = buffer.take(upTo: 10)
        #expect(finished.map(\.name) == ["root"] && finished[0].parentSpanId == 0)
    }

    @Test("a full buffer drops new spans and counts them; it never waits")
    func fullBuffer() {
        let buffer = SpanBuffer(capacity: 2, batchSize: 2)
        let tracer = OTLPTracer(buffer: buffer)
        for index in 0..<5 { tracer.startSpan("s\(index)", context: .topLevel, ofKind: .internal).end() }
        #expect(buffer.count == 2 && buffer.dropped == 3)
        #expect(buffer.take(upTo: 10).map(\.name) == ["s0", "s1"])
        #expect(buffer.count == 0)
    }

    @Test("the export request is OTLP's JSON: hex ids, decimal-string times, numeric kinds, typed values")
    func json() throws {
        let buffer = SpanBuffer(capacity: 10)
        let tracer = OTLPTracer(buffer: buffer)
        let span = tracer.startSpan("GET /v1/\"x\"", context: .topLevel, ofKind: .server)
        span.attributes["http.response.status_code"] = 200
        span.attributes["url.path"] = "/v1/x"
        span.attributes["ok"] = true
        span.setStatus(SpanStatus(code: .error, message: "boom"))
        struct Failure: Error {}
        span.recordError(Failure())
        span.end()
        let body = OTLPJSON.exportRequest(buffer.take(upTo: 10), service: "gateway", instance: "h:1", version: "1.0")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let resource = try #require((object["resourceSpans"] as? [[String: Any]])?.first)
        let attributes = try #require((resource["resource"] as? [String: Any])?["attributes"] as? [[String: Any]])
        #expect(attributes.contains { $0["key"] as? String == "service.name" && ($0["value"] as? [String: Any])?["stringValue"] as? String == "gateway" })
        let exported = try #require(
            ((resource["scopeSpans"] as? [[String: Any]])?.first?["spans"] as? [[String: Any]])?.first)
        #expect(exported["traceId"] as? String == span.identity.traceIdHex)
        #expect(exported["spanId"] as? String == span.identity.spanIdHex)
        #expect(exported["parentSpanId"] == nil)
        #expect(exported["name"] as? String == "GET /v1/\"x\"")
        #expect(exported["kind"] as? Int == 2)
        let start = try #require(exported["startTimeUnixNano"] as? String)
        let end = try #require(exported["endTimeUnixNano"] as? String)
        #expect(UInt64(start)! <= UInt64(end)!)
        let values = Dictionary(
            ((exported["attributes"] as? [[String: Any]]) ?? []).map {
                ($0["key"] as! String, $0["value"] as! [String: Any])
            }, uniquingKeysWith: { first, _ in first })
        #expect(values["http.response.status_code"]?["intValue"] as? String == "200")
        #expect(values["url.path"]?["stringValue"] as? String == "/v1/x")
        #expect(values["ok"]?["boolValue"] as? Bool == true)
        let status = try #require(exported["status"] as? [String: Any])
        #expect(status["code"] as? Int == 2 && status["message"] as? String == "boom")
        let events = try #require(exported["events"] as? [[String: Any]])
        #expect(events.first?["name"] as? String == "exception")
    }
}
