#!/usr/bin/env python3
"""A local stand-in of the Open States API v3 (`/bills`, `/people`, `/events`) serving the
generated PolitiMap fixture (fixture.py), so that `make up` and the tests run civic's real
importer without the network.

It answers as the real API does: `{results, pagination}` pages (`page`, `per_page` up to 100),
`jurisdiction` required, `include=` choosing the optional members, `updated_since` and
`sort=updated_asc` on bills, 401 without the right `X-API-KEY` when STANDIN_API_KEY is set.

For tests and the benchmark, a control API under /_standin (never part of Open States):
  POST /_standin/faults     {"throttle_every": N, "retry_after": S,
                             "fail": [{"path": "bills", "page": 2, "times": 1, "kind": "500"|"garbage"}],
                             "changes": [{"jurisdiction": ID, "nth": 2, "touch": N, "introduce": M}]}
                            A rule matches a page by its number ("page"), or ("nth": N) the N-th request
                            of its path and again the same request (a retry) while "times" lasts;
                            "jurisdiction" narrows it to one. A change: right after it serves that page
                            of bills, the feed changes as /_standin/touch and /_standin/introduce would;
                            "touch_served": N touches the first N bills of the page just served.
  POST /_standin/introduce  {"jurisdiction": ID, "count": N}  new bills, updated now
  POST /_standin/touch      {"jurisdiction": ID, "count": N}  N bills get a new action, all updated at
                            one time: now, or a second after the latest of them if later (the least
                            recently updated first; jurisdiction "*": any)
  GET  /_standin/stats      requests served, by path and status

Environment: STANDIN_PORT (8095), STANDIN_HOST (127.0.0.1), STANDIN_SEED, STANDIN_SCALE (1.0:
2,220 bills), STANDIN_API_KEY (unset: no key needed).

`standin.py --probe` asks a running stand-in on 127.0.0.1:STANDIN_PORT for /_standin/stats and
exits 0 when it answers 200 (a container's health check).
"""
import datetime as dt
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture  # noqa: E402

BILL_OPTIONAL = ["abstracts", "actions", "sponsorships", "votes", "versions", "documents", "sources"]
PERSON_OPTIONAL = ["offices", "links", "sources"]
EVENT_OPTIONAL = ["agenda", "participants", "documents", "sources", "media"]


class State:
    def __init__(self, seed, scale):
        self.lock = threading.RLock()
        self.data = fixture.Fixture(seed=seed, scale=scale)
        self.faults = {"throttle_every": 0, "retry_after": 1, "fail": [], "changes": []}
        self.requests = 0
        self.stats = {}
        self.counter = {}

    def fail_for(self, path, jurisdiction, page, request):
        for rule in self.faults["fail"]:
            if int(rule.get("times", 1)) > 0 and rule_matches(rule, path, jurisdiction, page, request):
                rule["times"] = int(rule.get("times", 1)) - 1
                return rule.get("kind", "500")
        return None


def rule_matches(rule, path, jurisdiction, page, request):
    """Whether a fault rule applies to this page request (`request`: its query string, the same for
    a retry)."""
    if rule.get("path", "bills") != path or rule.get("jurisdiction", jurisdiction) != jurisdiction:
        return False
    if "nth" not in rule:
        return int(rule.get("page", 1)) == page
    if "request" not in rule:
        rule["seen"] = rule.get("seen", 0) + 1
        if rule["seen"] < int(rule["nth"]):
            return False
        rule["request"] = request
    return rule["request"] == request


def introduce(jurisdiction, count):
    """`count` new bills in `jurisdiction`, updated now (call with STATE.lock held)."""
    made = []
    for _ in range(count):
        n = STATE.counter[jurisdiction] = STATE.counter.get(jurisdiction, 5000) + 1
        bill = STATE.data.make_bill(jurisdiction, n, now=dt.datetime.now(dt.timezone.utc))
        STATE.data.bills.append(bill)
        made.append({"id": bill["id"], "identifier": bill["identifier"], "title": bill["title"]})
    return made


def touch(jurisdiction, count, bills=None):
    """A new action on the `count` least recently updated bills of `jurisdiction` ("*": any), or on
    `bills` when given, all updated at one time: now, or a second after the latest of them when that
    is later (a change always moves a bill on) (call with STATE.lock held)."""
    if bills is None:
        own = [b for b in STATE.data.bills if jurisdiction == "*" or b["jurisdiction"]["id"] == jurisdiction]
        own.sort(key=lambda b: b["updated_at"])
        bills = own[:count]
    stamp = now_iso()
    if bills:
        latest = dt.datetime.fromisoformat(max(b["updated_at"] for b in bills))
        stamp = max(stamp, fixture.iso(latest + dt.timedelta(seconds=1)))
    touched = []
    for bill in bills:
        bill["actions"].append({"organization": bill["from_organization"],
                                "description": f"Hearing set ({stamp})", "date": stamp[:10],
                                "classification": ["referral-committee"],
                                "order": len(bill["actions"]) + 1})
        bill["latest_action_description"] = bill["actions"][-1]["description"]
        bill["title"] = bill["title"].split(" [")[0] + f" [amended {stamp}]"
        bill["updated_at"] = stamp
        touched.append({"id": bill["id"], "title": bill["title"]})
    return touched


def change_after(jurisdiction, page, request, served):
    """Applies the fault rules' feed changes due after this page of `jurisdiction`'s bills (`served`:
    the bills it held)."""
    for rule in STATE.faults["changes"]:
        if int(rule.get("times", 1)) > 0 and rule_matches(rule, "bills", jurisdiction, page, request):
            rule["times"] = int(rule.get("times", 1)) - 1
            touch(jurisdiction, int(rule.get("touch", 0)))
            if int(rule.get("touch_served", 0)) > 0:
                touch(jurisdiction, 0, served[:int(rule["touch_served"])])
            introduce(jurisdiction, int(rule.get("introduce", 0)))


def now_iso():
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def trimmed(item, optional, include):
    return {k: v for k, v in item.items() if k not in optional or k in include}


class Handler(BaseHTTPRequestHandler):
    server_version = "openstates-standin/1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, headers=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        with STATE.lock:
            key = f"{urlsplit(self.path).path} {status}"
            STATE.stats[key] = STATE.stats.get(key, 0) + 1

    def do_GET(self):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if url.path == "/_standin/stats":
            with STATE.lock:
                return self.reply(200, {"stats": STATE.stats, "bills": len(STATE.data.bills),
                                        "people": len(STATE.data.people), "events": len(STATE.data.events)})
        path = url.path.strip("/")
        if path not in ("bills", "people", "events"):
            return self.reply(404, {"detail": "Not Found"})
        key = os.environ.get("STANDIN_API_KEY")
        if key and self.headers.get("X-API-KEY") != key:
            return self.reply(401, {"detail": "invalid API key"})
        try:
            page = int(query.get("page", ["1"])[0])
            per_page = int(query.get("per_page", ["10"])[0])
        except ValueError:
            return self.reply(400, {"detail": "page and per_page are integers"})
        if page < 1 or not 1 <= per_page <= 100:
            return self.reply(400, {"detail": "page >= 1, per_page 1 to 100"})
        jurisdiction = query.get("jurisdiction", [None])[0]
        if not jurisdiction:
            return self.reply(400, {"detail": "jurisdiction is required"})
        include = set(query.get("include", []))
        with STATE.lock:
            STATE.requests += 1
            every = STATE.faults["throttle_every"]
            if every and STATE.requests % every == 0:
                return self.reply(429, {"detail": "slow down"}, {"Retry-After": str(STATE.faults["retry_after"])})
            failure = STATE.fail_for(path, jurisdiction, page, url.query)
            if failure == "500":
                return self.reply(500, {"detail": "internal error"})
            if failure == "garbage":
                return self.reply(200, b'{"results": [{"id": "ocd-bill/broken"')
            if path == "bills":
                items = [b for b in STATE.data.bills if b["jurisdiction"]["id"] == jurisdiction]
                since = query.get("updated_since", [None])[0]
                if since:
                    since = since.replace("Z", "+00:00").replace(" ", "+")
                    items = [b for b in items if b["updated_at"] >= since]
                items.sort(key=lambda b: (b["updated_at"], b["id"]))
                optional = BILL_OPTIONAL
            elif path == "people":
                items = [p for p in STATE.data.people if p["jurisdiction"]["id"] == jurisdiction]
                optional = PERSON_OPTIONAL
            else:
                items = [e for e in STATE.data.events if e["jurisdiction"]["id"] == jurisdiction]
                items.sort(key=lambda e: (e["start_date"], e["id"]))
                optional = EVENT_OPTIONAL
            total = len(items)
            max_page = max(1, -(-total // per_page))
            chunk = items[(page - 1) * per_page: page * per_page]
            results = [trimmed(item, optional, include) for item in chunk]
            if path == "bills":
                change_after(jurisdiction, page, url.query, chunk)
        return self.reply(200, {"results": results,
                                "pagination": {"per_page": per_page, "page": page, "max_page": max_page,
                                               "total_items": total}})

    def do_POST(self):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return self.reply(400, {"detail": "send JSON"})
        with STATE.lock:
            if url.path == "/_standin/faults":
                STATE.faults = {"throttle_every": int(body.get("throttle_every", 0)),
                                "retry_after": int(body.get("retry_after", 1)), "fail": list(body.get("fail", [])),
                                "changes": list(body.get("changes", []))}
                STATE.requests = 0
                return self.reply(200, STATE.faults)
            jurisdiction = body.get("jurisdiction", fixture.STATE)
            count = int(body.get("count", 1))
            if url.path == "/_standin/introduce":
                return self.reply(200, {"introduced": introduce(jurisdiction, count)})
            if url.path == "/_standin/touch":
                return self.reply(200, {"touched": touch(jurisdiction, count)})
        return self.reply(404, {"detail": "Not Found"})


STATE = None


def probe(port):
    """Exit status 0 when the stand-in on `port` answers /_standin/stats, else 1."""
    import urllib.request
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_standin/stats", timeout=2) as answer:
            sys.exit(0 if answer.status == 200 else 1)
    except OSError as error:
        print(f"openstates-standin on port {port}: {error}", file=sys.stderr)
        sys.exit(1)


def main():
    if sys.argv[1:] == ["--probe"]:
        probe(int(os.environ.get("STANDIN_PORT", "8095")))
    # A parent that blocks or ignores SIGTERM (a Swift test process starts it from a thread that
    # blocks most signals) passes that on; without this, stopping the stand-in left it running.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    global STATE
    STATE = State(int(os.environ.get("STANDIN_SEED", "20261124")), float(os.environ.get("STANDIN_SCALE", "1.0")))
    host = os.environ.get("STANDIN_HOST", "127.0.0.1")
    port = int(os.environ.get("STANDIN_PORT", "8095"))
    server = ThreadingHTTPServer((host, port), Handler)
    print(f"openstates-standin on http://{host}:{port}: {len(STATE.data.bills)} bills, "
          f"{len(STATE.data.people)} people, {len(STATE.data.events)} events", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
