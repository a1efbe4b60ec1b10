"""The broker answers valid but unexpected worker commands with DISCONNECT (RFC 7, RFC 8 namespace)."""

from __future__ import annotations

import mdp
from harness import PROMPT, service_status, wait_for_status

HEARTBEAT = [b"", b"MDPW01", b"\x04"]
DISCONNECT = [b"", b"MDPW01", b"\x05"]


def expect_disconnect(peer: mdp.RawPeer, heartbeats_allowed: bool) -> None:
    """Wait for DISCONNECT, exactly as RFC 7 spells it; only HEARTBEATs may come before it."""
    frames, skipped = peer.recv_until(lambda f: mdp.worker_command(f) == mdp.DISCONNECT, timeout=PROMPT)
    assert frames == DISCONNECT
    unexpected = [mdp.describe(f) for f in skipped if not (heartbeats_allowed and f == HEARTBEAT)]
    assert not unexpected, f"before DISCONNECT the broker sent {unexpected}"


def test_heartbeat_before_ready_gets_disconnect(broker, peers):
    peer = peers.raw(broker)
    peer.send(mdp.worker_message(mdp.HEARTBEAT))
    expect_disconnect(peer, heartbeats_allowed=False)


def test_reply_before_ready_gets_disconnect(broker, peers):
    peer = peers.raw(broker)
    peer.send(mdp.worker_message(mdp.REPLY, b"\x00\x6b\x8b\x45\x67", b"", b"nobody asked"))
    expect_disconnect(peer, heartbeats_allowed=False)


def test_second_ready_gets_disconnect_and_unregisters(make_broker, peers):
    # Expiry is 3 s here, so a 404 within 1.5 s is due to the DISCONNECT, not to expiry.
    broker = make_broker(heartbeat_ms=1000)
    client = peers.client(broker)
    peer = peers.raw(broker)
    peer.send(mdp.worker_message(mdp.READY, "echo"))
    wait_for_status(client, "echo", b"200", PROMPT)

    peer.send(mdp.worker_message(mdp.READY, "echo"))
    expect_disconnect(peer, heartbeats_allowed=True)

    limit = broker.config.expiry / 2
    took = wait_for_status(client, "echo", b"404", limit, "the disconnected worker was the only one for echo")
    assert took <= limit


def test_worker_cannot_register_in_the_mmi_namespace(broker, peers):
    client = peers.client(broker)
    for service in ("mmi.service", "mmi.echo"):
        peer = peers.raw(broker)
        peer.send(mdp.worker_message(mdp.READY, service))
        expect_disconnect(peer, heartbeats_allowed=False)

    # The namespace still belongs to the broker.
    assert service_status(client, "nobody", PROMPT) == b"404"
    assert client.request("mmi.echo", [b"hello"], timeout=PROMPT) == [b"501"]
