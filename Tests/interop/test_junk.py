"""Thousands of malformed and out-of-order messages do not bring the broker down.

The junk is random but reproducible: set INTEROP_JUNK_SEED to replay another
sequence (the seed is printed in failure messages).
"""

from __future__ import annotations

import os
import random
import time

import zmq

import mdp
from harness import PROMPT, service_status

SEED = int(os.environ.get("INTEROP_JUNK_SEED", "20250101"))
SOCKETS = 6
MESSAGES = 3000
NEW_SOCKET_EVERY = 150  # replace a socket now and then, so peers also vanish mid-conversation

COMMANDS = [mdp.READY, mdp.REQUEST, mdp.REPLY, mdp.HEARTBEAT, mdp.DISCONNECT]
PROTOCOL_LOOKALIKES = [
    b"MDPC02", b"MDPW02", b"MDPC00", b"mdpw01", b"mdpc01", b"MDP", b"MDPW0", b"MDPW01\x00",
    b"MDPC01MDPW01", b"\x00" * 6, b"", b"MDPW01 ", b"MDPX01",
]  # fmt: skip
SERVICES = [
    b"", b"junk", b"echo", b"mmi.service", b"mmi.", b"mmi.foo", b"\x00", b"\xff\xfe\xfd",
    "sérvïce".encode(), b"a" * 2000, b"with space", b"new\nline",
]  # fmt: skip


class Junk:
    """Random messages of several flavours, all from one seeded generator."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def data(self, limit: int = 48) -> bytes:
        rng = self.rng
        if rng.random() < 0.01:
            return rng.randbytes(rng.randint(4096, 200_000))
        return rng.randbytes(rng.choice([0, 0, 1, 2, rng.randint(0, limit)]))

    def frames(self, low: int, high: int) -> list[bytes]:
        return [self.data() for _ in range(self.rng.randint(low, high))]

    def service(self) -> bytes:
        return self.rng.choice(SERVICES) if self.rng.random() < 0.7 else self.data(24)

    def message(self) -> list[bytes]:
        rng = self.rng
        flavour = rng.choice(
            [self.anything, self.garbage_command, self.misshapen_command, self.wrong_protocol,
             self.missing_delimiter, self.odd_client_request, self.registration, self.loose_command]
        )  # fmt: skip
        frames = flavour()
        return frames or [b""]  # a ZeroMQ message has at least one frame

    def anything(self) -> list[bytes]:
        return self.frames(0, 8)

    def garbage_command(self) -> list[bytes]:
        command = self.rng.choice([b"", b"\x00", b"\x06", b"\x7f", b"\xff", b"\x01\x01", b"\x04\x00", b"READY"])
        return [b"", mdp.WORKER, command, *self.frames(0, 5)]

    def misshapen_command(self) -> list[bytes]:
        address, body = self.data(8), self.frames(0, 3)
        return self.rng.choice(
            [
                [b"", mdp.WORKER],
                [b"", mdp.WORKER, mdp.READY],
                [b"", mdp.WORKER, mdp.READY, self.service(), *self.frames(1, 3)],
                [b"", mdp.WORKER, mdp.REQUEST, address, b"", *body],
                [b"", mdp.WORKER, mdp.REPLY],
                [b"", mdp.WORKER, mdp.REPLY, address],
                [b"", mdp.WORKER, mdp.REPLY, address, b""],
                [b"", mdp.WORKER, mdp.REPLY, address, b"not empty", *body],
                [b"", mdp.WORKER, mdp.HEARTBEAT, *self.frames(1, 3)],
                [b"", mdp.WORKER, mdp.DISCONNECT, *self.frames(1, 3)],
                [b"", mdp.CLIENT],
                [b"", mdp.CLIENT, b"mmi.service"],
                [b"", mdp.CLIENT, b"mmi.service", *self.frames(2, 6)],
            ]
        )

    def wrong_protocol(self) -> list[bytes]:
        rng = self.rng
        tail = [rng.choice(COMMANDS), self.service()] if rng.random() < 0.5 else self.frames(0, 6)
        return [b"", rng.choice(PROTOCOL_LOOKALIKES), *tail]

    def missing_delimiter(self) -> list[bytes]:
        rng = self.rng
        header = rng.choice([[mdp.CLIENT], [mdp.WORKER], [self.data(4) or b"x", rng.choice([mdp.CLIENT, mdp.WORKER])]])
        return [*header, rng.choice([rng.choice(COMMANDS), self.service()]), *self.frames(0, 4)]

    def odd_client_request(self) -> list[bytes]:
        return [b"", mdp.CLIENT, self.service(), *self.frames(0, 6)]

    def registration(self) -> list[bytes]:
        return [b"", mdp.WORKER, mdp.READY, self.service()]

    def loose_command(self) -> list[bytes]:
        """Commands valid on their own, probably out of order for the socket they come from."""
        return self.rng.choice(
            [
                mdp.worker_message(mdp.HEARTBEAT),
                mdp.worker_message(mdp.DISCONNECT),
                mdp.worker_message(mdp.REPLY, self.data(8), b"", *self.frames(1, 3)),
            ]
        )


def dealer(context: zmq.Context, endpoint: str) -> zmq.Socket:
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.SNDTIMEO, 2000)
    socket.connect(endpoint)
    return socket


def drain(socket: zmq.Socket) -> None:
    while socket.poll(0):
        socket.recv_multipart()


def test_junk_does_not_crash_the_broker(broker, peers, zmq_context):
    rng = random.Random(SEED)
    junk = Junk(rng)
    sockets = [dealer(zmq_context, broker.endpoint) for _ in range(SOCKETS)]
    context = f"(junk seed {SEED})"
    try:
        for n in range(MESSAGES):
            if n % NEW_SOCKET_EVERY == NEW_SOCKET_EVERY - 1:
                slot = rng.randrange(SOCKETS)
                sockets[slot].close(linger=0)
                sockets[slot] = dealer(zmq_context, broker.endpoint)
            socket = rng.choice(sockets)
            try:
                socket.send_multipart(junk.message())
            except zmq.Again:
                pass  # the broker is not reading fast enough; that is its right
            drain(socket)
            if n % 250 == 0:
                assert broker.alive, f"broker died after {n} junk messages {context}\n{broker.log_tail()}"
    finally:
        for socket in sockets:
            socket.close(linger=0)

    # Let queued junk requests time out and junk workers expire while we watch.
    settle = broker.config.request_timeout + broker.config.expiry + 1.0
    until = time.monotonic() + settle
    while time.monotonic() < until:
        assert broker.alive, f"broker died after the junk {context}\n{broker.log_tail()}"
        time.sleep(0.1)

    client = peers.client(broker)
    assert service_status(client, "fresh", PROMPT) == b"404", context
    peers.serve(broker, "fresh")
    body = [b"still", b"", bytes(range(256))]
    assert client.request("fresh", body, timeout=PROMPT) == body, context
    assert broker.alive, f"broker died {context}"
