"""Workers that die or take long, run as separate echo_worker.py processes."""

from __future__ import annotations

import json
import time

import mdp
from harness import PROMPT, wait_until

REGISTRATION = 15.0  # a Python process start on a slow machine, plus one heartbeat


def test_kill_9_of_a_busy_worker(broker, peers):
    """The client whose request a killed worker held gets "unavailable"; the other replica serves on."""
    expiry = broker.config.expiry
    first = peers.echo_process(broker, "echo", name="first")
    first.wait_for("registered", REGISTRATION)
    second = peers.echo_process(broker, "echo", name="second")
    second.wait_for("registered", REGISTRATION)
    client = peers.client(broker)

    client.send("echo", [b"sleep", b"30"])
    victim = wait_until(
        lambda: next((w for w in (first, second) if w.count("busy")), None),
        PROMPT,
        "neither worker started the sleep request",
    )
    survivor = second if victim is first else first
    victim.kill()
    killed = time.monotonic()

    try:
        reply = client.recv(timeout=expiry + 10.0)  # the client's own deadline, far below the 30 s sleep
    except mdp.Timeout:
        redispatched = survivor.count("busy") > 0
        raise AssertionError(
            "no reply to the request the killed worker held"
            + (" - the broker re-dispatched it to the other replica instead of answering unavailable" if redispatched else "")
            + f"; survivor saw {survivor.lines}"
        ) from None
    waited = time.monotonic() - killed
    assert reply.frames[:3] == [b"", b"MDPC01", b"echo"]
    assert len(reply.body) == 2 and reply.body[0] == b"unavailable", reply.body
    assert json.loads(reply.body[1]).get("code") == "unavailable", reply.body
    assert waited <= expiry + 3.0, f"error reply {waited:.2f}s after the kill (expiry is {expiry}s)"

    for n in range(3):
        body = [b"after", str(n).encode()]
        assert client.request("echo", body, timeout=PROMPT) == body
    survivor.wait_for("replied", PROMPT, occurrences=3)


def test_busy_worker_that_heartbeats_is_not_expired(broker, peers):
    """A request that takes several expiry periods (and longer than the queue timeout) still completes."""
    worker = peers.echo_process(broker, "echo")
    worker.wait_for("registered", REGISTRATION)
    client = peers.client(broker)
    seconds = max(3 * broker.config.expiry, broker.config.request_timeout + 0.5)
    body = [b"sleep", f"{seconds:.2f}".encode()]

    started = time.monotonic()
    assert client.request("echo", body, timeout=seconds + PROMPT) == body
    assert time.monotonic() - started >= seconds
