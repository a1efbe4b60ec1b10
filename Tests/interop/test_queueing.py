"""Requests for services without a worker wait in the broker, up to BROKER_REQUEST_TIMEOUT_MS."""

from __future__ import annotations

import json
import time

from harness import PROMPT, service_status, tagged


def test_request_waits_for_a_worker_that_appears_later(make_broker, peers):
    broker = make_broker(request_timeout_ms=6000)
    client = peers.client(broker)
    assert service_status(client, "late", PROMPT) == b"404"

    client.send("late", [b"early", b"", b"bird"])
    time.sleep(0.5)  # nothing to observe: the request sits in the broker's queue
    peers.serve(broker, "late", tagged("worker"))

    reply = client.recv(timeout=PROMPT)
    assert reply.frames == [b"", b"MDPC01", b"late", b"worker", b"early", b"", b"bird"]


def test_request_for_a_service_nobody_serves_gets_unavailable(broker, peers):
    """After BROKER_REQUEST_TIMEOUT_MS the broker answers [b"unavailable", {"code": "unavailable", "message": ...}]."""
    timeout = broker.config.request_timeout
    client = peers.client(broker)

    sent = time.monotonic()
    client.send("nobody", [b"hello?"])
    reply = client.recv(timeout=timeout + PROMPT)
    waited = time.monotonic() - sent

    assert reply.frames[:3] == [b"", b"MDPC01", b"nobody"]
    assert len(reply.body) == 2 and reply.body[0] == b"unavailable", reply.body
    error = json.loads(reply.body[1])
    assert isinstance(error, dict), error
    assert error.get("code") == "unavailable", error
    assert isinstance(error.get("message"), str), error
    assert waited >= 0.8 * timeout, f"answered after {waited:.2f}s, before the {timeout}s request timeout"
    assert waited <= timeout + 2.5, f"answered after {waited:.2f}s, long after the {timeout}s request timeout"
