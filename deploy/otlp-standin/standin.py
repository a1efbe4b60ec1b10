#!/usr/bin/env python3
"""A local stand-in of an OpenTelemetry collector's OTLP/HTTP trace receiver, for the trace tests
(and for a look at what the services send, with `make up` and
OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318). It keeps every span in memory.

Served:
  POST /v1/traces     an ExportTraceServiceRequest as protobuf (Content-Type:
                      application/x-protobuf, what the services send; decoded with the
                      OpenTelemetry project's own message definitions, `opentelemetry-proto`)
                      or as OTLP's JSON (application/json); answers 200 with an
                      ExportTraceServiceResponse in the same encoding, 400 for a body that is
                      not one (the reason in the answer), 415 for another content type. A
                      request whose sender leaves before its whole body arrived is not judged
                      (and not answered): it is logged as cut short.
Control API under /_standin (never part of OTLP):
  GET  /_standin/spans    every span received, as OTLP's JSON writes it (hex ids, numeric
                          kinds, decimal-string times), plus "service" (the resource's
                          service.name), in arrival order
  POST /_standin/reset    forgets every span

Environment: STANDIN_PORT (4318), STANDIN_HOST (127.0.0.1).
Prints "otlp-standin on HOST:PORT" once it listens.
"""
import base64
import json
import os
import signal
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

HEX32 = re.compile(r"^[0-9a-f]{32}$")
HEX16 = re.compile(r"^[0-9a-f]{16}$")
LOCK = threading.Lock()
SPANS = []


def resource_service(resource):
    for attribute in (resource or {}).get("attributes", []):
        if attribute.get("key") == "service.name":
            return attribute.get("value", {}).get("stringValue")
    return None


def check_span(span):
    """The reason `span` is not a valid OTLP/JSON span, or None."""
    if not HEX32.match(span.get("traceId", "")) or span["traceId"] == "0" * 32:
        return "traceId must be 32 lower-case hex digits, not all zero"
    if not HEX16.match(span.get("spanId", "")) or span["spanId"] == "0" * 16:
        return "spanId must be 16 lower-case hex digits, not all zero"
    parent = span.get("parentSpanId", "")
    if parent and not HEX16.match(parent):
        return "parentSpanId must be 16 lower-case hex digits or absent"
    if not isinstance(span.get("name"), str) or not span["name"]:
        return "a span needs a name"
    if span.get("kind") not in (0, 1, 2, 3, 4, 5):
        return "kind must be a SpanKind number"
    for field in ("startTimeUnixNano", "endTimeUnixNano"):
        if not isinstance(span.get(field), str) or not span[field].isdigit():
            return f"{field} must be a decimal string"
    if int(span["endTimeUnixNano"]) < int(span["startTimeUnixNano"]):
        return "a span ends before it starts"
    for attribute in span.get("attributes", []):
        if not isinstance(attribute.get("key"), str) or not isinstance(attribute.get("value"), dict):
            return "an attribute needs a key and a value"
    return None


def from_protobuf(body):
    """A protobuf ExportTraceServiceRequest as OTLP's JSON has it: protobuf's JSON mapping writes
    ids in base64 and kinds by name, where OTLP's JSON asks for hex and numbers."""
    message = trace_service_pb2.ExportTraceServiceRequest()
    message.ParseFromString(body)
    request = json_format.MessageToDict(message, use_integers_for_enums=True)
    for resource_spans in request.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
                for link in span.get("links", []):
                    for key in ("traceId", "spanId"):
                        if key in link:
                            link[key] = base64.b64decode(link[key]).hex()
                span.setdefault("kind", 0)
    return request


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/_standin/spans":
            with LOCK:
                return self.answer(200, list(SPANS))
        self.answer(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if len(body) < length:
            # The sender went away mid-request (an exporter's last flush cut off by its timeout or
            # its process's exit): nothing arrived to judge, and nobody is left to answer.
            print(f"a request cut short: {len(body)} of {length} bytes", flush=True)
            self.close_connection = True
            return
        if self.path == "/_standin/reset":
            with LOCK:
                SPANS.clear()
            return self.answer(200, {})
        if self.path != "/v1/traces":
            return self.answer(404, {"error": "not found"})
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if content_type not in ("application/json", "application/x-protobuf"):
            return self.answer(415, {"error": "only application/x-protobuf or application/json"})
        protobuf = content_type == "application/x-protobuf"
        try:
            request = from_protobuf(body) if protobuf else json.loads(body)
            received = []
            for resource_spans in request["resourceSpans"]:
                service = resource_service(resource_spans.get("resource"))
                if not service:
                    raise ValueError("a resource without service.name")
                for scope_spans in resource_spans.get("scopeSpans", []):
                    for span in scope_spans.get("spans", []):
                        reason = check_span(span)
                        if reason:
                            raise ValueError(reason)
                        received.append(dict(span, service=service))
        except (ValueError, KeyError, TypeError, AttributeError, DecodeError) as error:
            print(f"refused a request: {error}", flush=True)
            return self.answer(400, {"error": str(error)})
        with LOCK:
            SPANS.extend(received)
        print(f"received {len(received)} spans", flush=True)
        if not protobuf:
            return self.answer(200, {"partialSuccess": {}})
        data = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    # A parent that blocks or ignores SIGTERM (a Swift test process starts it from a thread that
    # blocks most signals) passes that on; without this, stopping the stand-in left it running.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    host = os.environ.get("STANDIN_HOST", "127.0.0.1")
    port = int(os.environ.get("STANDIN_PORT", "4318"))
    server = ThreadingHTTPServer((host, port), Handler)
    print(f"otlp-standin on {host}:{port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
