import Tracing

/// OTLP/HTTP's JSON encoding of an `ExportTraceServiceRequest` (POST `/v1/traces`): ids as
/// lower-case hex, 64-bit integers as decimal strings, enums as their numbers, field names in
/// lowerCamelCase, as the OTLP specification's JSON mapping asks.
public enum OTLPJSON {
    /// The request body for `spans` of one process (`service.name` = `service`).
    public static func exportRequest(
        _ spans: [FinishedSpan], service: String, instance: String, version: String
    ) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(256 + spans.count * 400)
        out += #"{"resourceSpans":[{"resource":{"attributes":["#.utf8
        attribute("service.name", .string(service), into: &out)
        out.append(0x2C)
        attribute("service.instance.id", .string(instance), into: &out)
        out.append(0x2C)
        attribute("service.version", .string(version), into: &out)
        out += #"]},"scopeSpans":[{"scope":{"name":"backplane"},"spans":["#.utf8
        for (index, span) in spans.enumerated() {
            if index > 0 { out.append(0x2C) }
            encode(span, into: &out)
        }
        out += "]}]}]}".utf8
        return out
    }

    static func encode(_ span: FinishedSpan, into out: inout [UInt8]) {
        out += #"{"traceId":""#.utf8
        TraceParent.appendHex(span.traceIdHigh, digits: 16, to: &out)
        TraceParent.appendHex(span.traceIdLow, digits: 16, to: &out)
        out += #"","spanId":""#.utf8
        TraceParent.appendHex(span.spanId, digits: 16, to: &out)
        out.append(0x22)
        if span.parentSpanId != 0 {
            out += #","parentSpanId":""#.utf8
            TraceParent.appendHex(span.parentSpanId, digits: 16, to: &out)
            out.append(0x22)
        }
        if let state = span.traceState {
            out += #","traceState":"#.utf8
            string(state, into: &out)
        }
        out += #","name":"#.utf8
        string(span.name, into: &out)
        out += #","kind":\#(kindNumber(span.kind)),"startTimeUnixNano":"\#(span.startNanos)","endTimeUnixNano":"\#(span.endNanos)","attributes":["#.utf8
        attributes(span.attributes, into: &out)
        out += #"],"events":["#.utf8
        for (index, event) in span.events.enumerated() {
            if index > 0 { out.append(0x2C) }
            out += #"{"timeUnixNano":"\#(event.nanosecondsSinceEpoch)","name":"#.utf8
            string(event.name, into: &out)
            out += #","attributes":["#.utf8
            attributes(event.attributes, into: &out)
            out += "]}".utf8
        }
        out += #"],"links":["#.utf8
        for (index, link) in span.links.enumerated() {
            if index > 0 { out.append(0x2C) }
            out += #"{"traceId":""#.utf8
            TraceParent.appendHex(link.traceIdHigh, digits: 16, to: &out)
            TraceParent.appendHex(link.traceIdLow, digits: 16, to: &out)
            out += #"","spanId":""#.utf8
            TraceParent.appendHex(link.spanId, digits: 16, to: &out)
            out += #""}"#.utf8
        }
        out += "]".utf8
        if let status = span.status {
            out += #","status":{"code":\#(status.code == .ok ? 1 : 2)"#.utf8
            if let message = status.message {
                out += #","message":"#.utf8
                string(message, into: &out)
            }
            out += "}".utf8
        }
        out += "}".utf8
    }

    /// `SPAN_KIND_*`: internal 1, server 2, client 3, producer 4, consumer 5.
    static func kindNumber(_ kind: SpanKind) -> Int {
        switch kind {
        case .internal: return 1
        case .server: return 2
        case .client: return 3
        case .producer: return 4
        case .consumer: return 5
        }
    }

    static func attributes(_ attributes: SpanAttributes, into out: inout [UInt8]) {
        var first = true
        attributes.forEach { key, value in
            if !first { out.append(0x2C) }
            first = false
            attribute(key, value, into: &out)
        }
    }

    static func attribute(_ key: String, _ value: SpanAttribute, into out: inout [UInt8]) {
        out += #"{"key":"#.utf8
        string(key, into: &out)
        out += #","value":"#.utf8
        anyValue(value, into: &out)
        out += "}".utf8
    }

    static func anyValue(_ value: SpanAttribute, into out: inout [UInt8]) {
        switch value {
        case .int32(let number): out += #"{"intValue":"\#(number)"}"#.utf8
        case .int64(let number): out += #"{"intValue":"\#(number)"}"#.utf8
        case .double(let number) where number.isFinite: out += #"{"doubleValue":\#(number)}"#.utf8
        case .bool(let flag): out += #"{"boolValue":\#(flag)}"#.utf8
        case .string(let text):
            out += #"{"stringValue":"#.utf8
            string(text, into: &out)
            out += "}".utf8
        case .int32Array(let numbers): array(numbers.map { .int32($0) }, into: &out)
        case .int64Array(let numbers): array(numbers.map { .int64($0) }, into: &out)
        case .doubleArray(let numbers): array(numbers.map { .double($0) }, into: &out)
        case .boolArray(let flags): array(flags.map { .bool($0) }, into: &out)
        case .stringArray(let texts): array(texts.map { .string($0) }, into: &out)
        case .stringConvertibleArray(let items): array(items.map { .string($0.description) }, into: &out)
        case .stringConvertible(let item):
            out += #"{"stringValue":"#.utf8
            string(item.description, into: &out)
            out += "}".utf8
        default:
            out += #"{"stringValue":"#.utf8
            string("\(value)", into: &out)
            out += "}".utf8
        }
    }

    static func array(_ values: [SpanAttribute], into out: inout [UInt8]) {
        out += #"{"arrayValue":{"values":["#.utf8
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(0x2C) }
            anyValue(value, into: &out)
        }
        out += "]}}".utf8
    }

    /// `text` as a JSON string.
    static func string(_ text: String, into out: inout [UInt8]) {
        out.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: out += #"\""#.utf8
            case 0x5C: out += #"\\"#.utf8
            case 0x0A: out += #"\n"#.utf8
            case 0x0D: out += #"\r"#.utf8
            case 0x09: out += #"\t"#.utf8
            case 0..<0x20:
                out += #"\u00"#.utf8
                TraceParent.appendHex(UInt64(byte), digits: 2, to: &out)
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}
