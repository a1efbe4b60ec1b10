"""Request and reply through the broker: bodies pass untouched, replies reach the right client."""

from __future__ import annotations

import mdp
from harness import PROMPT

BODIES = {
    "single frame": [b"hello"],
    "one empty frame": [b""],
    "empty frames around data": [b"", b"middle", b""],
    "only empty frames": [b"", b"", b""],
    "every byte value": [bytes(range(256))],
    "binary frames": [b"\x00", bytes(range(255, -1, -1)), b"", b"\xff\x00\xff", b"\x00" * 17],
    "frames that look like MDP": [b"", b"MDPC01", b"echo", b"MDPW01", b"\x02", b"\x05"],
    "many frames": [bytes([n]) * n for n in range(64)],
    "one megabyte frame": [bytes(range(256)) * 4096, b"tail"],
}


def test_echo_preserves_multiframe_bodies(broker, peers):
    """Every body reaches the worker and comes back to the client intact, frame by frame, in order."""
    worker = peers.worker(broker, "echo")
    client = peers.client(broker)

    for name, body in BODIES.items():
        client.send("echo", body)
        address, received = worker.recv(timeout=PROMPT)
        assert received == body, f"{name}: worker got a different body"
        assert worker.reply(address, received)

        reply = client.recv(timeout=PROMPT)
        assert reply.frames[:3] == [b"", b"MDPC01", b"echo"], f"{name}: reply header"
        assert reply.body == body, f"{name}: client got a different body"


def test_worker_sees_rfc7_request_frames(broker, peers):
    """The broker hands a worker ["", MDPW01, 0x02, client, "", body...] and routes its REPLY back."""
    worker = peers.raw(broker)
    worker.send(mdp.worker_message(mdp.READY, "echo"))
    client = peers.client(broker)
    body = [b"a", b"", bytes(range(256))]

    client.send("echo", body)
    request, skipped = worker.recv_until(lambda f: mdp.worker_command(f) == mdp.REQUEST, timeout=PROMPT)

    assert all(f == mdp.worker_message(mdp.HEARTBEAT) for f in skipped), skipped
    assert request[:3] == [b"", b"MDPW01", b"\x02"]
    address = request[3]
    assert address, "client address frame must not be empty"
    assert request[4] == b"", "client address must be followed by an empty frame"
    assert request[5:] == body

    worker.send(mdp.worker_message(mdp.REPLY, address, b"", *reversed(body)))
    reply = client.recv(timeout=PROMPT)
    assert reply.frames == [b"", b"MDPC01", b"echo", *reversed(body)]


def test_replies_reach_the_client_that_asked(broker, peers):
    worker = peers.worker(broker, "echo")
    alice = peers.client(broker)
    bob = peers.client(broker)

    alice.send("echo", [b"from alice"])
    bob.send("echo", [b"from bob"])
    for _ in range(2):
        address, body = worker.recv(timeout=PROMPT)
        worker.reply(address, [b"re", *body])

    assert alice.recv(timeout=PROMPT).body == [b"re", b"from alice"]
    assert bob.recv(timeout=PROMPT).body == [b"re", b"from bob"]


def test_sequential_requests_from_one_client(broker, peers):
    peers.serve(broker, "echo")
    client = peers.client(broker)
    for n in range(20):
        body = [str(n).encode(), b"", bytes([n])]
        assert client.request("echo", body, timeout=PROMPT) == body
