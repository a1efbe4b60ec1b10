"""MMI (RFC 8): mmi.service answers 200/404, other mmi.* services answer 501."""

from __future__ import annotations

import mdp
from harness import PROMPT, service_status, wait_for_status


def test_mmi_service_reply_format(broker, peers):
    client = peers.client(broker)
    client.send("mmi.service", ["nobody-serves-this"])
    reply = client.recv(timeout=PROMPT)
    assert reply.frames == [b"", b"MDPC01", b"mmi.service", b"404"]


def test_mmi_service_is_200_only_while_a_worker_serves(broker, peers):
    client = peers.client(broker)
    assert service_status(client, "echo", PROMPT) == b"404"

    peers.serve(broker, "echo")  # returns once the broker has addressed the worker

    assert service_status(client, "echo", PROMPT) == b"200"
    assert service_status(client, "other", PROMPT) == b"404"
    assert service_status(client, "echo.", PROMPT) == b"404"
    assert service_status(client, "ECHO", PROMPT) == b"404"


def test_mmi_service_is_404_after_the_worker_disconnects(make_broker, peers):
    # Expiry is 3 s here, so a 404 within 1.5 s of DISCONNECT is due to the DISCONNECT.
    broker = make_broker(heartbeat_ms=1000)
    client = peers.client(broker)
    worker = peers.serve(broker, "echo")
    assert service_status(client, "echo", PROMPT) == b"200"

    worker.stop(disconnect=True)

    limit = broker.config.expiry / 2
    took = wait_for_status(client, "echo", b"404", limit, "DISCONNECT must unregister the worker")
    assert took <= limit


def test_mmi_service_is_404_after_a_silent_worker_expires(broker, peers):
    client = peers.client(broker)
    silent = peers.raw(broker)
    silent.send(mdp.worker_message(mdp.READY, "echo"))
    wait_for_status(client, "echo", b"200", PROMPT)

    wait_for_status(client, "echo", b"404", broker.config.expiry + PROMPT, "a worker that never heartbeats must expire")


def test_unknown_mmi_services_answer_501(broker, peers):
    client = peers.client(broker)
    for service in (b"mmi.foo", b"mmi.", b"mmi.services", b"mmi.service.x"):
        client.send(service, [b"echo"])
        reply = client.recv(timeout=PROMPT)
        assert reply.frames == [b"", b"MDPC01", service, b"501"], f"{service!r}"
