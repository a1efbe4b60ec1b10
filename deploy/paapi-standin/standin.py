#!/usr/bin/env python3
"""A local stand-in of the Amazon Product Advertising API 5.0 (`POST /paapi5/searchitems`,
`POST /paapi5/getitems`) for social's `amazon` catalogue in tests and offline runs.

It checks every request as the real API does before answering: the headers PA-API requires
(`content-encoding: amz-1.0`, `x-amz-target` naming the operation of the path, `host`,
`x-amz-date`), and the AWS Signature Version 4 in `Authorization`, recomputed here from the raw
request with the secret key (credential scope `date/region/ProductAdvertisingAPI/aws4_request`,
every header the client signed, the body's SHA-256); a wrong or missing signature is 401
`InvalidSignature`, an unknown access key 401 `UnrecognizedClient`, a date more than 15 minutes
off 401 `RequestExpired`, a wrong partner tag 400 `InvalidPartnerTag`. Answers have the API's
shape (`SearchResult.Items`, `ItemsResult.Items`, `Errors`) over 40 generated products.

Control API under /_standin (never part of PA-API):
  POST /_standin/throttle  {"count": N, "retry_after": S}   the next N calls answer 429
                                                            (Retry-After: S; S null: no header)
  POST /_standin/fail      {"count": N}                     the next N calls answer 500
  GET  /_standin/stats     {"searchitems": n, "getitems": n, "rejected": n, "throttled": n}

Environment: STANDIN_PORT (8096), STANDIN_ACCESS_KEY, STANDIN_SECRET_KEY, STANDIN_PARTNER_TAG,
STANDIN_REGION (us-east-1).
"""
import datetime as dt
import hashlib
import hmac
import json
import os
import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ACCESS = os.environ.get("STANDIN_ACCESS_KEY", "AKIDSTANDIN")
SECRET = os.environ.get("STANDIN_SECRET_KEY", "standin-secret")
TAG = os.environ.get("STANDIN_PARTNER_TAG", "backplane-20")
REGION = os.environ.get("STANDIN_REGION", "us-east-1")
SERVICE = "ProductAdvertisingAPI"
TARGETS = {
    "/paapi5/searchitems": "com.amazon.paapi5.v1.ProductAdvertisingAPIv1.SearchItems",
    "/paapi5/getitems": "com.amazon.paapi5.v1.ProductAdvertisingAPIv1.GetItems",
}
INDEXES = {"Books": "Book", "ToysAndGames": "Toy", "HomeAndKitchen": "Kitchen", "Electronics": "Electronics"}


def product(n):
    groups = list(INDEXES.values())
    nouns = ["Teapot", "Headphones", "Novel", "Robot", "Kettle", "Speaker", "Atlas", "Puzzle"]
    adjectives = ["Wireless", "Ceramic", "Classic", "Smart", "Vintage"]
    group = groups[n % len(groups)]
    title = f"{adjectives[n % len(adjectives)]} {nouns[n % len(nouns)]} {n}"
    listing = {"Price": {"Amount": round(9.99 + n * 1.25, 2), "Currency": "USD",
                         "DisplayAmount": f"${9.99 + n * 1.25:.2f}"},
               "Availability": {"Type": "Now" if n % 7 else "Backorderable"}}
    return {
        "ASIN": f"B0STAND{n:03d}",
        "DetailPageURL": f"https://www.amazon.com/dp/B0STAND{n:03d}?tag={TAG}",
        "Images": {"Primary": {"Large": {"URL": f"https://m.media-amazon.com/images/I/standin-{n}.jpg",
                                         "Height": 500, "Width": 500}}},
        "ItemInfo": {
            "Title": {"DisplayValue": title, "Label": "Title", "Locale": "en_US"},
            "ByLineInfo": {"Brand": {"DisplayValue": ["Acme", "Globex", "Initech"][n % 3]}},
            "Features": {"DisplayValues": [f"feature {n}a", f"feature {n}b"]},
            "Classifications": {"ProductGroup": {"DisplayValue": group}},
        },
        "Offers": {"Listings": [listing]} if n % 11 else {},
        "CustomerReviews": {"StarRating": {"Value": 3.0 + (n % 20) / 10.0}},
        "_index": [k for k, v in INDEXES.items() if v == group][0],
        "_cents": round((9.99 + n * 1.25) * 100),
    }


PRODUCTS = [product(n) for n in range(1, 41)]
BY_ASIN = {p["ASIN"]: p for p in PRODUCTS}


class State:
    lock = threading.Lock()
    throttle = 0
    retry_after = 1
    fail = 0
    stats = {"searchitems": 0, "getitems": 0, "rejected": 0, "throttled": 0}


def public(item, resources):
    return {k: v for k, v in item.items() if not k.startswith("_")}


def check_signature(handler, body):
    """None when the request is signed as SigV4 asks, else (status, code, message)."""
    auth = handler.headers.get("Authorization", "")
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return 401, "IncompleteSignature", "Authorization is not AWS4-HMAC-SHA256"
    parts = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(",") if "=" in p)
    try:
        access, date, region, service, terminator = parts["Credential"].split("/")
        signed = parts["SignedHeaders"].split(";")
        signature = parts["Signature"]
    except (KeyError, ValueError):
        return 401, "IncompleteSignature", "Authorization lacks Credential, SignedHeaders or Signature"
    if access != ACCESS:
        return 401, "UnrecognizedClient", "The Access Key ID or security token included in the request is invalid."
    amz_date = handler.headers.get("x-amz-date", "")
    if (region, service, terminator) != (REGION, SERVICE, "aws4_request") or amz_date[:8] != date:
        return 401, "InvalidSignature", "credential scope does not match"
    for required in ("host", "x-amz-date", "x-amz-target", "content-encoding"):
        if required not in signed:
            return 401, "InvalidSignature", f"{required} is not signed"
    if signed != sorted(signed):
        return 401, "InvalidSignature", "SignedHeaders are not sorted"
    try:
        when = dt.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return 401, "IncompleteSignature", "x-amz-date is not YYYYMMDDTHHMMSSZ"
    if abs((dt.datetime.now(dt.timezone.utc) - when).total_seconds()) > 900:
        return 401, "RequestExpired", "Request has expired."
    canonical_headers = ""
    for name in signed:
        value = handler.headers.get(name)
        if value is None:
            return 401, "InvalidSignature", f"signed header {name} is missing"
        canonical_headers += name + ":" + " ".join(value.split()) + "\n"
    canonical = "\n".join(["POST", handler.path, "", canonical_headers, ";".join(signed),
                           hashlib.sha256(body).hexdigest()])
    scope = f"{date}/{REGION}/{SERVICE}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + SECRET).encode()
    for part in (date, REGION, SERVICE, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        return 401, "InvalidSignature", "The request signature we calculated does not match the signature you provided."
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, payload, headers=None):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, code, message, headers=None):
        self.answer(status, {"__type": f"com.amazon.paapi5#{code}Exception",
                             "Errors": [{"Code": code, "Message": message}]}, headers)

    def do_GET(self):
        if self.path == "/_standin/stats":
            with State.lock:
                return self.answer(200, dict(State.stats))
        self.error(404, "NotFound", "no such path")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
        if self.path.startswith("/_standin/"):
            command = json.loads(body or b"{}")
            with State.lock:
                if self.path == "/_standin/throttle":
                    State.throttle = int(command.get("count", 1))
                    State.retry_after = command.get("retry_after", 1)
                elif self.path == "/_standin/fail":
                    State.fail = int(command.get("count", 1))
            return self.answer(200, {"ok": True})
        if self.path not in TARGETS:
            return self.error(404, "UnknownOperation", "no such operation")
        if self.headers.get("x-amz-target") != TARGETS[self.path]:
            return self.error(400, "UnknownOperation", "x-amz-target does not name this path's operation")
        if self.headers.get("content-encoding") != "amz-1.0":
            return self.error(400, "InvalidParameterValue", "content-encoding must be amz-1.0")
        refused = check_signature(self, body)
        if refused:
            with State.lock:
                State.stats["rejected"] += 1
            return self.error(*refused)
        with State.lock:
            if State.throttle > 0:
                State.throttle -= 1
                State.stats["throttled"] += 1
                headers = {} if State.retry_after is None else {"Retry-After": str(State.retry_after)}
                return self.error(429, "TooManyRequests", "The request was denied due to request throttling.", headers)
            if State.fail > 0:
                State.fail -= 1
                return self.error(500, "InternalFailure", "The request processing has failed.")
        request = json.loads(body)
        if request.get("PartnerTag") != TAG or request.get("PartnerType") != "Associates":
            return self.error(400, "InvalidPartnerTag", "The partner tag is invalid or not present.")
        resources = request.get("Resources", [])
        if self.path == "/paapi5/searchitems":
            with State.lock:
                State.stats["searchitems"] += 1
            words = [w.lower() for w in str(request.get("Keywords", "")).split()]
            index = request.get("SearchIndex", "All")
            low, high = request.get("MinPrice", 0), request.get("MaxPrice", 10 ** 12)
            found = [p for p in PRODUCTS
                     if any(w in p["ItemInfo"]["Title"]["DisplayValue"].lower() for w in words)
                     and (index == "All" or p["_index"] == index) and low <= p["_cents"] <= high]
            count, page = int(request.get("ItemCount", 10)), int(request.get("ItemPage", 1))
            if not 1 <= count <= 10 or not 1 <= page <= 10:
                return self.error(400, "InvalidParameterValue", "ItemCount is 1-10 and ItemPage 1-10")
            items = found[(page - 1) * count: page * count]
            if not items:
                return self.answer(404, {"Errors": [{"Code": "NoResults", "Message": "No results found."}]})
            return self.answer(200, {"SearchResult": {"TotalResultCount": len(found),
                                                      "Items": [public(p, resources) for p in items]}})
        with State.lock:
            State.stats["getitems"] += 1
        ids = request.get("ItemIds", [])
        if not 1 <= len(ids) <= 10:
            return self.error(400, "InvalidParameterValue", "ItemIds holds 1 to 10 ids")
        known = [public(BY_ASIN[i], resources) for i in ids if i in BY_ASIN]
        payload = {"ItemsResult": {"Items": known}} if known else {}
        errors = [{"Code": "InvalidParameterValue",
                   "Message": f"The ItemId {i} provided in the request is invalid."} for i in ids if i not in BY_ASIN]
        if errors:
            payload["Errors"] = errors
        self.answer(200, payload)


def main():
    # A parent that blocks or ignores SIGTERM (a Swift test process starts it from a thread that
    # blocks most signals) passes that on; without this, stopping the stand-in left it running.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    port = int(os.environ.get("STANDIN_PORT", "8096"))
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"paapi-standin on 127.0.0.1:{port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
