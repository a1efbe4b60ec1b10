#!/usr/bin/env python3
"""A local stand-in of the subset of Stripe's PaymentIntents API that orders uses, so that the
tests (and `make up` with PAYMENT_PROVIDER=stripe) run the real adapter without the network.
It moves no money and keeps everything in memory.

Served (form-encoded bodies, `Authorization: Bearer STANDIN_API_KEY`, JSON answers):
  POST /v1/payment_intents               amount, currency, payment_method, customer?, confirm=true,
                                         capture_method=manual|automatic, metadata[k]=v
  GET  /v1/payment_intents/{id}
  POST /v1/payment_intents/{id}/capture  amount_to_capture?
  POST /v1/payment_intents/{id}/cancel
  GET  /v1/payment_intents/search        query=metadata['k']:'v'
  POST /v1/refunds                       payment_intent, amount?, metadata[k]=v
  GET  /v1/refunds                       payment_intent?, limit? (newest first)
  POST /v1/payment_methods               type=card, card[number], card[exp_month], card[exp_year],
                                         card[cvc]: what the app's Stripe SDK does with the buyer's
                                         card (client-side tokenization); answers a `pm_...`
  GET  /v1/payment_methods/{id}          the card's brand, last4 and expiry (also for the test
                                         PaymentMethods below)
  POST /v1/payment_methods/{id}/attach   customer: attaches the PaymentMethod to the Customer (a
                                         test PaymentMethod such as pm_card_visa is copied into a
                                         new pm_... attached to it, as Stripe does)
  POST /v1/customers                     metadata[k]=v (no e-mail needed)
  GET  /v1/customers/search              query=metadata['k']:'v'
Stripe's rule for reusing cards is enforced: a PaymentMethod made through POST
/v1/payment_methods and not attached to a Customer pays one PaymentIntent only; a second
PaymentIntent with it, or attaching it after that, is a 400 invalid_request_error
(`payment_method_unexpected_state`). A PaymentIntent with an attached PaymentMethod must name its
Customer (`customer`), and one naming a Customer must use a PaymentMethod attached to that
Customer (else a 400 `parameter_invalid` on `customer`). The test PaymentMethods themselves
(pm_card_visa, ...) stand for a fresh card at each use, so they may be used without a Customer
any number of times.
Every POST honours `Idempotency-Key`: the same key with the same parameters answers the first
answer again (`Idempotent-Replayed: true`), with other parameters a 400 `idempotency_error`.

Test payment methods (as a processor's test mode has them): `pm_card_visa` (and any other
`pm_...`) succeeds; `pm_card_chargeDeclined` card_declined; `pm_card_chargeDeclinedInsufficientFunds`
insufficient_funds; `pm_card_chargeDeclinedExpiredCard` expired_card;
`pm_card_chargeDeclinedProcessingError` processing_error; `pm_card_authenticationRequired`
needs 3-D Secure (`requires_action`).

Control API under /_standin (never part of Stripe):
  POST /_standin/faults   {"delay_ms": N, "fail_5xx": N, "fail_after": bool, "timeout": N,
                           "timeout_s": S}
      delay_ms: every request waits N ms first; fail_5xx: the next N POSTs answer 500 (with
      fail_after, after doing the work, as when the answer is lost); timeout: the next N POSTs
      do the work and then hang for timeout_s seconds (default 30) before answering.
  POST /_standin/authenticate  {"payment_intent": ID, "succeed": true|false}  the buyer's 3-D
                           Secure step: requires_action → requires_capture / succeeded, or a
                           failed authentication
  GET  /_standin/stats     payment intents by status, captured and refunded sums, POSTs by key,
                           customers made
  GET  /_standin/intents   every payment intent
  GET  /_standin/charges   every payment intent that holds or took money, with its backplane key,
                           amounts authorized, captured and refunded (for the fault run's
                           reconciliation, Tests/ReconcileTests)

Environment: STANDIN_PORT (8096), STANDIN_HOST (127.0.0.1), STANDIN_API_KEY (sk_test_standin),
STANDIN_DELAY_MS (0: the faults' delay_ms from the start, e.g. 300 for the payments benchmark).
Prints "stripe-standin on HOST:PORT" once it listens.
"""
import json
import os
import signal
import sys
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

DECLINES = {
    "pm_card_chargeDeclined": ("card_declined", "generic_decline", "Your card was declined."),
    "pm_card_chargeDeclinedInsufficientFunds": ("card_declined", "insufficient_funds", "Your card has insufficient funds."),
    "pm_card_chargeDeclinedExpiredCard": ("expired_card", None, "Your card has expired."),
    "pm_card_chargeDeclinedProcessingError": ("processing_error", None, "An error occurred while processing your card."),
}
NEEDS_ACTION = "pm_card_authenticationRequired"
# Test card numbers the SDK turns into PaymentMethods, and the test PaymentMethod each behaves as.
CARD_BEHAVIOUR = {
    "4000000000000002": "pm_card_chargeDeclined",
    "4000000000009995": "pm_card_chargeDeclinedInsufficientFunds",
    "4000000000000069": "pm_card_chargeDeclinedExpiredCard",
    "4000000000000119": "pm_card_chargeDeclinedProcessingError",
    "4000002760003184": NEEDS_ACTION,
}
TEST_METHODS = {
    "pm_card_visa": ("visa", "4242"),
    "pm_card_mastercard": ("mastercard", "4444"),
    "pm_card_chargeDeclined": ("visa", "0002"),
    "pm_card_chargeDeclinedInsufficientFunds": ("visa", "9995"),
    "pm_card_chargeDeclinedExpiredCard": ("visa", "0069"),
    "pm_card_chargeDeclinedProcessingError": ("visa", "0119"),
    NEEDS_ACTION: ("visa", "3184"),
}


def luhn_ok(number):
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def brand_of(number):
    if number.startswith("4"):
        return "visa"
    if number[:2] in ("51", "52", "53", "54", "55") or number[:4].isdigit() and 2221 <= int(number[:4]) <= 2720:
        return "mastercard"
    if number[:2] in ("34", "37"):
        return "amex"
    return "unknown"


SPENT_MESSAGE = ("This PaymentMethod already paid once without being attached to a Customer, so it cannot be "
                 "used again or attached now. Attach a PaymentMethod to a Customer before its first use to "
                 "use it more than once.")


class StripeError(Exception):
    def __init__(self, status, kind, message, code=None, decline_code=None, intent=None, param=None):
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message
        self.code, self.decline_code, self.intent, self.param = code, decline_code, intent, param

    def body(self):
        error = {"type": self.kind, "message": self.message}
        if self.code:
            error["code"] = self.code
        if self.param:
            error["param"] = self.param
        if self.decline_code:
            error["decline_code"] = self.decline_code
        if self.intent is not None:
            error["payment_intent"] = self.intent
        return {"error": error}


class State:
    def __init__(self):
        self.lock = threading.RLock()
        self.intents = {}
        self.refunds = {}
        self.methods = {}  # pm id -> PaymentMethod made through POST /v1/payment_methods (or attach)
        self.customers = {}  # cus id -> Customer
        self.idempotent = {}  # key -> (method, path, params, status, body)
        self.faults = {"delay_ms": int(os.environ.get("STANDIN_DELAY_MS", "0")), "fail_5xx": 0, "fail_after": False, "timeout": 0, "timeout_s": 30}
        self.posts_by_key = {}

    def new_id(self, prefix):
        return prefix + "_" + secrets.token_hex(12)

    def create_intent(self, params):
        try:
            amount = int(params.get("amount", ""))
        except ValueError:
            raise StripeError(400, "invalid_request_error", "Invalid integer: amount", code="parameter_invalid_integer")
        if amount < 1:
            raise StripeError(400, "invalid_request_error", "amount must be at least 1", code="amount_too_small")
        currency = params.get("currency", "")
        if len(currency) != 3 or currency != currency.lower():
            raise StripeError(400, "invalid_request_error", "Invalid currency", code="parameter_invalid")
        method = params.get("payment_method", "")
        if not method.startswith("pm_"):
            raise StripeError(400, "invalid_request_error", "No such PaymentMethod", code="resource_missing")
        capture = params.get("capture_method", "automatic")
        if capture not in ("manual", "automatic", "automatic_async"):
            raise StripeError(400, "invalid_request_error", "Invalid capture_method", code="parameter_invalid")
        metadata = {k[len("metadata["):-1]: v for k, v in params.items() if k.startswith("metadata[") and k.endswith("]")}
        self.check_reuse(method, params.get("customer"))
        pid = self.new_id("pi")
        intent = {
            "id": pid, "object": "payment_intent", "amount": amount, "amount_capturable": 0,
            "amount_received": 0, "currency": currency, "capture_method": capture,
            "payment_method": method, "status": "requires_confirmation", "metadata": metadata,
            "client_secret": pid + "_secret_" + secrets.token_hex(8), "latest_charge": None,
            "last_payment_error": None, "next_action": None, "created": int(time.time()),
            "amount_refunded": 0, "customer": params.get("customer"),
        }
        self.intents[pid] = intent
        if params.get("confirm") in ("true", "1"):
            self.confirm(intent)
        return intent

    def create_method(self, params):
        if params.get("type", "card") != "card":
            raise StripeError(400, "invalid_request_error", "Invalid type", code="parameter_invalid")
        number = params.get("card[number]", "").replace(" ", "")
        if not (number.isdigit() and 12 <= len(number) <= 19 and luhn_ok(number)):
            raise StripeError(402, "card_error", "Your card number is incorrect.", code="incorrect_number")
        try:
            month, year = int(params.get("card[exp_month]", "")), int(params.get("card[exp_year]", ""))
        except ValueError:
            raise StripeError(402, "card_error", "Your card's expiration date is invalid.", code="invalid_expiry_month")
        if not 1 <= month <= 12:
            raise StripeError(402, "card_error", "Your card's expiration month is invalid.", code="invalid_expiry_month")
        now = time.gmtime()
        if (year, month) < (now.tm_year, now.tm_mon):
            raise StripeError(402, "card_error", "Your card's expiration year is invalid.", code="invalid_expiry_year")
        pid = self.new_id("pm")
        method = {"id": pid, "object": "payment_method", "type": "card", "created": int(time.time()),
                  "card": {"brand": brand_of(number), "last4": number[-4:], "exp_month": month, "exp_year": year},
                  "behaves_as": CARD_BEHAVIOUR.get(number, "pm_card_visa"), "customer": None}
        self.methods[pid] = method
        return self.public_method(method)

    def public_method(self, method):
        return {k: v for k, v in method.items() if k not in ("behaves_as", "spent")}

    def check_reuse(self, pid, customer):
        """Stripe's rule: a PaymentMethod not attached to a Customer pays once; an attached one
        pays for its own Customer only, who must be named."""
        if customer is not None and customer not in self.customers:
            raise StripeError(400, "invalid_request_error", "No such customer: '%s'" % customer,
                              code="resource_missing", param="customer")
        method = self.methods.get(pid)
        if method is None:
            if customer is not None:
                raise StripeError(400, "invalid_request_error",
                                  "The PaymentMethod is not attached to a Customer, but a Customer was given; attach it first.",
                                  code="parameter_invalid", param="customer")
            return  # a test PaymentMethod: a fresh card at each use
        owner = method.get("customer")
        if owner is not None:
            if customer != owner:
                raise StripeError(400, "invalid_request_error",
                                  "The PaymentMethod is attached to a Customer; name that Customer to use it.",
                                  code="parameter_invalid", param="customer")
            return
        if customer is not None:
            raise StripeError(400, "invalid_request_error",
                              "The PaymentMethod is not attached to a Customer, but a Customer was given; attach it first.",
                              code="parameter_invalid", param="customer")
        if method.get("spent"):
            raise StripeError(400, "invalid_request_error", SPENT_MESSAGE,
                              code="payment_method_unexpected_state", param="payment_method")
        method["spent"] = True

    def create_customer(self, params):
        metadata = {k[len("metadata["):-1]: v for k, v in params.items() if k.startswith("metadata[") and k.endswith("]")}
        cid = self.new_id("cus")
        customer = {"id": cid, "object": "customer", "metadata": metadata, "created": int(time.time()),
                    "email": params.get("email")}
        self.customers[cid] = customer
        return customer

    def search_customers(self, query):
        found = []
        if query.startswith("metadata['") and "']:'" in query and query.endswith("'"):
            key, value = query[len("metadata['"):-1].split("']:'", 1)
            found = [c for c in self.customers.values() if c["metadata"].get(key) == value]
        return {"object": "search_result", "data": found, "has_more": False, "next_page": None}

    def attach(self, pid, params):
        customer = params.get("customer", "")
        if customer not in self.customers:
            raise StripeError(400, "invalid_request_error", "No such customer: '%s'" % customer,
                              code="resource_missing", param="customer")
        if pid in TEST_METHODS and pid not in self.methods:
            # Stripe copies a test PaymentMethod into a new one attached to the Customer.
            brand, last4 = TEST_METHODS[pid]
            copy = {"id": self.new_id("pm"), "object": "payment_method", "type": "card", "created": int(time.time()),
                    "card": {"brand": brand, "last4": last4, "exp_month": 12, "exp_year": time.gmtime().tm_year + 3},
                    "behaves_as": pid, "customer": customer}
            self.methods[copy["id"]] = copy
            return self.public_method(copy)
        method = self.methods.get(pid)
        if method is None:
            raise StripeError(404, "invalid_request_error", "No such PaymentMethod: '%s'" % pid,
                              code="resource_missing", param="payment_method")
        owner = method.get("customer")
        if owner == customer:
            return self.public_method(method)
        if owner is not None:
            raise StripeError(400, "invalid_request_error", "The PaymentMethod is attached to another Customer.",
                              code="payment_method_unexpected_state", param="payment_method")
        if method.get("spent"):
            raise StripeError(400, "invalid_request_error", SPENT_MESSAGE,
                              code="payment_method_unexpected_state", param="payment_method")
        method["customer"] = customer
        return self.public_method(method)

    def method(self, pid):
        if pid in self.methods:
            return self.public_method(self.methods[pid])
        if pid in TEST_METHODS:
            brand, last4 = TEST_METHODS[pid]
            return {"id": pid, "object": "payment_method", "type": "card",
                    "card": {"brand": brand, "last4": last4, "exp_month": 12, "exp_year": time.gmtime().tm_year + 3}}
        raise StripeError(404, "invalid_request_error", "No such PaymentMethod: '%s'" % pid, code="resource_missing")

    def confirm(self, intent):
        method = intent["payment_method"]
        if method in self.methods:
            method = self.methods[method]["behaves_as"]
        if method in DECLINES:
            code, decline, message = DECLINES[method]
            intent["status"] = "requires_payment_method"
            intent["last_payment_error"] = {"type": "card_error", "code": code, "decline_code": decline, "message": message}
            raise StripeError(402, "card_error", message, code=code, decline_code=decline, intent=dict(intent))
        if method == NEEDS_ACTION:
            intent["status"] = "requires_action"
            intent["next_action"] = {"type": "use_stripe_sdk", "use_stripe_sdk": {"type": "three_d_secure_redirect"}}
            return
        self.authorized(intent)

    def authorized(self, intent):
        intent["next_action"] = None
        intent["latest_charge"] = self.new_id("ch")
        if intent["capture_method"] == "manual":
            intent["status"] = "requires_capture"
            intent["amount_capturable"] = intent["amount"]
        else:
            intent["status"] = "succeeded"
            intent["amount_received"] = intent["amount"]

    def intent(self, pid):
        intent = self.intents.get(pid)
        if intent is None:
            raise StripeError(404, "invalid_request_error", "No such payment_intent: '%s'" % pid, code="resource_missing")
        return intent

    def capture(self, pid, params):
        intent = self.intent(pid)
        if intent["status"] != "requires_capture":
            raise StripeError(
                400, "invalid_request_error",
                "This PaymentIntent could not be captured because it has a status of %s." % intent["status"],
                code="payment_intent_unexpected_state", intent=dict(intent))
        amount = int(params.get("amount_to_capture", intent["amount"]))
        if amount < 1 or amount > intent["amount_capturable"]:
            raise StripeError(400, "invalid_request_error", "amount_to_capture is too large", code="parameter_invalid")
        intent["status"] = "succeeded"
        intent["amount_received"] = amount
        intent["amount_capturable"] = 0
        return intent

    def cancel(self, pid):
        intent = self.intent(pid)
        if intent["status"] not in ("requires_payment_method", "requires_capture", "requires_confirmation", "requires_action"):
            raise StripeError(
                400, "invalid_request_error",
                "You cannot cancel this PaymentIntent because it has a status of %s." % intent["status"],
                code="payment_intent_unexpected_state", intent=dict(intent))
        intent["status"] = "canceled"
        intent["amount_capturable"] = 0
        return intent

    def refund(self, params):
        intent = self.intent(params.get("payment_intent", ""))
        if intent["status"] != "succeeded":
            raise StripeError(400, "invalid_request_error", "This PaymentIntent has not been captured", code="charge_not_captured")
        left = intent["amount_received"] - intent["amount_refunded"]
        amount = int(params.get("amount", left))
        if amount < 1 or amount > left:
            raise StripeError(
                400, "invalid_request_error", "Refund amount is greater than unrefunded amount",
                code="charge_already_refunded" if left == 0 else "amount_too_large")
        intent["amount_refunded"] += amount
        rid = self.new_id("re")
        metadata = {k[len("metadata["):-1]: v for k, v in params.items() if k.startswith("metadata[") and k.endswith("]")}
        refund = {"id": rid, "object": "refund", "amount": amount, "currency": intent["currency"],
                  "payment_intent": intent["id"], "charge": intent["latest_charge"], "status": "succeeded",
                  "metadata": metadata, "created": int(time.time())}
        self.refunds[rid] = refund
        return refund

    def search(self, query):
        # metadata['key']:'value'
        found = []
        if query.startswith("metadata['") and "']:'" in query and query.endswith("'"):
            key, value = query[len("metadata['"):-1].split("']:'", 1)
            found = [i for i in self.intents.values() if i["metadata"].get(key) == value]
        return {"object": "search_result", "data": found, "has_more": False, "next_page": None}

    def list_refunds(self, query):
        intent = query.get("payment_intent")
        limit = max(1, min(100, int(query.get("limit", "10"))))
        found = [r for r in self.refunds.values() if intent is None or r["payment_intent"] == intent]
        found.sort(key=lambda r: r["created"], reverse=True)
        return {"object": "list", "data": found[:limit], "has_more": len(found) > limit, "url": "/v1/refunds"}

    def charges(self):
        rows = []
        for intent in self.intents.values():
            authorized = intent["amount"] if intent["latest_charge"] else 0
            if not authorized:
                continue
            rows.append({
                "payment_intent": intent["id"], "backplane_key": intent["metadata"].get("backplane_key"),
                "status": intent["status"], "currency": intent["currency"], "authorized": authorized,
                "captured": intent["amount_received"], "refunded": intent["amount_refunded"],
            })
        return {"data": rows}

    def stats(self):
        by_status = {}
        for intent in self.intents.values():
            by_status[intent["status"]] = by_status.get(intent["status"], 0) + 1
        captured = sum(i["amount_received"] for i in self.intents.values())
        refunded = sum(r["amount"] for r in self.refunds.values())
        return {"intents": by_status, "captured": captured, "refunded": refunded,
                "posts_by_key": self.posts_by_key, "customers": len(self.customers)}


STATE = State()
API_KEY = os.environ.get("STANDIN_API_KEY", "sk_test_standin")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body, headers=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode() if length else ""

    def authorized(self):
        if self.headers.get("Authorization") != "Bearer " + API_KEY:
            self.answer(401, {"error": {"type": "invalid_request_error", "message": "Invalid API Key provided"}})
            return False
        return True

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/_standin/stats":
            with STATE.lock:
                return self.answer(200, STATE.stats())
        if url.path == "/_standin/intents":
            with STATE.lock:
                return self.answer(200, {"data": list(STATE.intents.values())})
        if url.path == "/_standin/charges":
            with STATE.lock:
                return self.answer(200, STATE.charges())
        if not self.authorized():
            return
        time.sleep(STATE.faults["delay_ms"] / 1000)
        try:
            with STATE.lock:
                if url.path == "/v1/payment_intents/search":
                    query = dict(parse_qsl(url.query)).get("query", "")
                    return self.answer(200, STATE.search(query))
                if url.path == "/v1/customers/search":
                    query = dict(parse_qsl(url.query)).get("query", "")
                    return self.answer(200, STATE.search_customers(query))
                if url.path.startswith("/v1/payment_intents/"):
                    return self.answer(200, STATE.intent(unquote(url.path.split("/")[3])))
                if url.path == "/v1/refunds":
                    return self.answer(200, STATE.list_refunds(dict(parse_qsl(url.query))))
                if url.path.startswith("/v1/payment_methods/"):
                    return self.answer(200, STATE.method(unquote(url.path.split("/")[3])))
        except StripeError as error:
            return self.answer(error.status, error.body())
        self.answer(404, {"error": {"type": "invalid_request_error", "message": "Unrecognized request URL"}})

    def control(self, path, body):
        with STATE.lock:
            if path == "/_standin/faults":
                STATE.faults.update(body)
                return self.answer(200, STATE.faults)
            if path == "/_standin/authenticate":
                intent = STATE.intents.get(body.get("payment_intent", ""))
                if intent is None or intent["status"] != "requires_action":
                    return self.answer(400, {"error": "not awaiting action"})
                if body.get("succeed", True):
                    STATE.authorized(intent)
                else:
                    intent["status"] = "requires_payment_method"
                    intent["next_action"] = None
                    intent["last_payment_error"] = {
                        "type": "card_error", "code": "authentication_required", "decline_code": None,
                        "message": "The customer did not complete 3-D Secure."}
                return self.answer(200, intent)
        self.answer(404, {"error": "no such control"})

    def do_POST(self):
        url = urlsplit(self.path)
        raw = self.read_body()
        if url.path.startswith("/_standin/"):
            return self.control(url.path, json.loads(raw or "{}"))
        if not self.authorized():
            return
        if self.headers.get("Content-Type", "").split(";")[0] != "application/x-www-form-urlencoded":
            return self.answer(400, {"error": {"type": "invalid_request_error", "message": "form-encoded body expected"}})
        params = dict(parse_qsl(raw, keep_blank_values=True))
        key = self.headers.get("Idempotency-Key")
        with STATE.lock:
            faults = dict(STATE.faults)
            fail_now = STATE.faults["fail_5xx"] > 0
            if fail_now:
                STATE.faults["fail_5xx"] -= 1
            hang_now = STATE.faults["timeout"] > 0
            if hang_now:
                STATE.faults["timeout"] -= 1
            if key:
                STATE.posts_by_key[key] = STATE.posts_by_key.get(key, 0) + 1
        time.sleep(faults["delay_ms"] / 1000)
        if fail_now and not faults["fail_after"]:
            return self.answer(500, {"error": {"type": "api_error", "message": "stand-in fault"}})
        with STATE.lock:
            if key and key in STATE.idempotent:
                method, path, earlier, status, body = STATE.idempotent[key]
                if (method, path, earlier) != ("POST", url.path, params):
                    return self.answer(400, {"error": {
                        "type": "idempotency_error",
                        "message": "Keys for idempotent requests can only be used with the same parameters they were first used with."}})
                replay = (status, body)
            else:
                replay = None
                try:
                    status, body = 200, self.route(url.path, params)
                except StripeError as error:
                    status, body = error.status, error.body()
                if key and status != 404:
                    STATE.idempotent[key] = ("POST", url.path, params, status, body)
        if hang_now:
            time.sleep(faults["timeout_s"])
        if fail_now:
            return self.answer(500, {"error": {"type": "api_error", "message": "stand-in fault after the work"}})
        if replay:
            return self.answer(replay[0], replay[1], {"Idempotent-Replayed": "true"})
        self.answer(status, body)

    def route(self, path, params):
        if path == "/v1/payment_intents":
            return dict(STATE.create_intent(params))
        if path == "/v1/refunds":
            return STATE.refund(params)
        if path == "/v1/payment_methods":
            return STATE.create_method(params)
        if path == "/v1/customers":
            return STATE.create_customer(params)
        parts = path.split("/")
        if len(parts) == 5 and parts[2] == "payment_methods" and parts[4] == "attach":
            return STATE.attach(parts[3], params)
        if len(parts) == 5 and parts[2] == "payment_intents" and parts[4] == "capture":
            return dict(STATE.capture(parts[3], params))
        if len(parts) == 5 and parts[2] == "payment_intents" and parts[4] == "cancel":
            return dict(STATE.cancel(parts[3]))
        raise StripeError(404, "invalid_request_error", "Unrecognized request URL (POST: %s)" % path)


def probe(port):
    """Exit status 0 when the stand-in on `port` answers /_standin/stats (a container's health
    check: `standin.py --probe`), else 1."""
    import urllib.request
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/_standin/stats" % port, timeout=2) as answer:
            sys.exit(0 if answer.status == 200 else 1)
    except OSError as error:
        print("stripe-standin on port %d: %s" % (port, error), file=sys.stderr)
        sys.exit(1)


def main():
    if sys.argv[1:] == ["--probe"]:
        probe(int(os.environ.get("STANDIN_PORT", "8096")))
    # A parent that blocks or ignores SIGTERM (a Swift test process starts it from a thread that
    # blocks most signals) passes that on; without this, stopping the stand-in left it running.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    host = os.environ.get("STANDIN_HOST", "127.0.0.1")
    port = int(os.environ.get("STANDIN_PORT", "8096"))
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    print("stripe-standin on %s:%d" % (host, server.server_address[1]), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
