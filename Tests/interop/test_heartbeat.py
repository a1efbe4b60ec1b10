"""Heartbeating and expiry of workers (RFC 7 "Heartbeating")."""

from __future__ import annotations

import statistics
import time

import mdp
from harness import PROMPT, service_status, tagged, wait_for_status

HEARTBEAT = [b"", b"MDPW01", b"\x04"]


def test_broker_heartbeats_an_idle_worker(make_broker, peers):
    """A worker that sends READY and then only listens gets HEARTBEATs at about the configured interval."""
    # Liveness 12: the listener, which never heartbeats, stays registered for 3 s; we listen for 2 s.
    broker = make_broker(heartbeat_ms=250, liveness=12)
    interval = broker.config.heartbeat
    listener = peers.raw(broker)

    listener.send(mdp.worker_message(mdp.READY, "echo"))
    ready_sent = time.monotonic()
    received = listener.collect(2.0)

    others = [mdp.describe(frames) for _, frames in received if frames != HEARTBEAT]
    assert not others, f"an idle worker should only get HEARTBEATs, got {others}"
    beats = [at for at, _ in received]
    assert len(beats) >= 4, f"expected about 8 HEARTBEATs in 2 s at {interval}s intervals, got {len(beats)}"
    assert len(beats) <= 16, f"expected about 8 HEARTBEATs in 2 s at {interval}s intervals, got {len(beats)}"
    assert beats[0] - ready_sent <= 4 * interval, "first HEARTBEAT came late"
    gap = statistics.median(b - a for a, b in zip(beats, beats[1:]))
    assert 0.5 * interval <= gap <= 2 * interval, f"median gap {gap:.3f}s for a {interval}s interval"


def test_worker_that_heartbeats_stays_registered(broker, peers):
    """A worker that heartbeats outlives many expiry periods."""
    client = peers.client(broker)
    peers.serve(broker, "echo")

    until = time.monotonic() + 4 * broker.config.expiry
    while time.monotonic() < until:
        assert service_status(client, "echo", PROMPT) == b"200"
        time.sleep(0.1)
    assert client.request("echo", [b"still here"], timeout=PROMPT) == [b"still here"]


def test_silent_worker_expires_and_requests_queue_instead(make_broker, peers):
    """READY then silence: expired after about interval x liveness; later requests are not sent to it."""
    broker = make_broker(request_timeout_ms=8000)
    expiry = broker.config.expiry
    client = peers.client(broker)
    silent = peers.raw(broker)

    silent.send(mdp.worker_message(mdp.READY, "echo"))
    ready_sent = time.monotonic()
    wait_for_status(client, "echo", b"200", PROMPT)
    wait_for_status(client, "echo", b"404", expiry + 3.0, "a silent worker must expire")
    lived = time.monotonic() - ready_sent
    assert lived >= 0.6 * expiry, f"expired after {lived:.2f}s, expected about {expiry}s"

    client.send("echo", [b"queued"])
    heard = [frames for _, frames in silent.collect(1.0)]
    requests = [mdp.describe(f) for f in heard if mdp.worker_command(f) == mdp.REQUEST]
    assert not requests, "the broker sent a request to an expired worker"

    peers.serve(broker, "echo", tagged("live"), name="live")
    reply = client.recv(timeout=PROMPT)
    assert reply.frames == [b"", b"MDPC01", b"echo", b"live", b"queued"]
