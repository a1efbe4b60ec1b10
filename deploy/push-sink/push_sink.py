#!/usr/bin/env python3
"""A local push provider for `make up` and the system tests: answers like APNs and FCM.

    python3 deploy/push-sink/push_sink.py --port 8088 --log .data/push.jsonl

Point notify at it with APNS_ENDPOINT / FCM_ENDPOINT=http://127.0.0.1:8088. It answers
`POST /3/device/<token>` (APNs) and `POST /v1/projects/<id>/messages:send` (FCM) by the token's
prefix: `gone-` → APNs 410 Unregistered / FCM 404 UNREGISTERED, `bad-` → APNs 400
BadDeviceToken / FCM 400 INVALID_ARGUMENT, `busy-` → 429 on the first push to that token,
anything else → 200. Every request is appended to the log as one JSON line
(provider, token, status, title, body). Prints `push-sink ready on HOST:PORT`.
"""
import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SEEN = {}


def answer(token, apns):
    with LOCK:
        SEEN[token] = SEEN.get(token, 0) + 1
        seen = SEEN[token]
    if token.startswith("gone-"):
        return (410, {"reason": "Unregistered"}) if apns else \
            (404, {"error": {"code": 404, "status": "NOT_FOUND", "details": [{"errorCode": "UNREGISTERED"}]}})
    if token.startswith("bad-"):
        return (400, {"reason": "BadDeviceToken"}) if apns else \
            (400, {"error": {"code": 400, "status": "INVALID_ARGUMENT"}})
    if token.startswith("busy-") and seen == 1:
        return (429, {"reason": "TooManyRequests"}) if apns else \
            (429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}})
    return (200, None) if apns else (200, {"name": "projects/local/messages/%d" % seen})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_path = None

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0") or 0))
        try:
            payload = json.loads(body or b"{}")
        except ValueError:
            payload = {}
        if self.path.startswith("/3/device/"):
            token, apns = self.path[len("/3/device/"):], True
            alert = payload.get("aps", {}).get("alert", {})
        elif self.path.endswith("/messages:send"):
            message = payload.get("message", {})
            token, apns = message.get("token", ""), False
            alert = message.get("notification", {})
        else:
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        status, reply = answer(token, apns)
        with LOCK, open(self.log_path, "a") as f:
            f.write(json.dumps({"provider": "apns" if apns else "fcm", "token": token, "status": status,
                                "title": alert.get("title"), "body": alert.get("body")}) + "\n")
        data = json.dumps(reply).encode() if reply is not None else b""
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PUSH_SINK_PORT", "8088")))
    parser.add_argument("--log", default=os.environ.get("PUSH_SINK_LOG", ".data/push.jsonl"))
    args = parser.parse_args()
    # A parent may have blocked these (signal masks are inherited across exec); we must see them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    os.makedirs(os.path.dirname(os.path.abspath(args.log)), exist_ok=True)
    Handler.log_path = args.log
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    print("push-sink ready on %s:%d, logging to %s" % (args.host, args.port, args.log), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
