"""The broker's endpoint at the byte level: ZMTP 3.1 (RFC 37, NULL mechanism) over a plain TCP socket.

These tests speak ZMTP by hand, written from the RFC: a peer that breaks the
wire protocol loses its own connection and nobody else notices.
"""

from __future__ import annotations

import os
import socket
import struct
import time

import pytest

import mdp
from harness import PROMPT, service_status, wait_for_status

MORE, LONG, COMMAND = 0x01, 0x02, 0x04
def greeting(mechanism: bytes = b"NULL", major: int = 3) -> bytes:
    return b"\xff" + b"\x00" * 8 + b"\x7f" + bytes([major, 1]) + mechanism.ljust(20, b"\x00") + b"\x00" * 32


def frame(body: bytes, flags: int = 0) -> bytes:
    if len(body) > 255:
        return bytes([flags | LONG]) + struct.pack(">Q", len(body)) + body
    return bytes([flags, len(body)]) + body


def command(name: bytes, data: bytes = b"") -> bytes:
    return frame(bytes([len(name)]) + name + data, COMMAND)


def ready(**properties: bytes) -> bytes:
    data = b"".join(
        bytes([len(key)]) + key.encode() + struct.pack(">I", len(value)) + value
        for key, value in properties.items()
    )
    return command(b"READY", data)


def message(*frames: bytes) -> bytes:
    return b"".join(frame(body, MORE if index < len(frames) - 1 else 0) for index, body in enumerate(frames))


class Wire:
    """A TCP connection to the broker, read frame by frame."""

    def __init__(self, endpoint: str):
        host, port = endpoint.removeprefix("tcp://").rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=PROMPT)
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed by the broker after {len(self.buffer)} of {count} bytes")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_frame(self) -> tuple[int, bytes]:
        flags = self.read(1)[0]
        size = struct.unpack(">Q", self.read(8))[0] if flags & LONG else self.read(1)[0]
        return flags, self.read(size)

    def read_message(self) -> list[bytes]:
        frames = []
        while True:
            flags, body = self.read_frame()
            assert not flags & COMMAND, f"a command where a message was expected: {body!r}"
            frames.append(body)
            if not flags & MORE:
                return frames

    def handshake(self, **properties: bytes) -> dict[bytes, bytes]:
        """Greets as a DEALER; returns the broker's READY properties."""
        self.send(greeting() + ready(**{"Socket-Type": b"DEALER", **properties}))
        theirs = self.read(64)
        assert theirs[0] == 0xFF and theirs[9] & 1 and theirs[10] == 3, f"not a ZMTP 3 greeting: {theirs!r}"
        assert theirs[12:32] == b"NULL".ljust(20, b"\x00")
        flags, body = self.read_frame()
        assert flags & COMMAND and body[1 : 1 + body[0]] == b"READY", f"expected READY, got {body!r}"
        data, found = body[1 + body[0] :], {}
        while data:
            name = data[1 : 1 + data[0]]
            (size,) = struct.unpack(">I", data[1 + data[0] : 5 + data[0]])
            found[name] = data[5 + data[0] : 5 + data[0] + size]
            data = data[5 + data[0] + size :]
        return found

    def closed_by_peer(self, timeout: float = PROMPT) -> bool:
        """True when the broker closes the connection within `timeout` (whatever it sent first)."""
        self.sock.settimeout(timeout)
        try:
            while self.sock.recv(65536):
                pass
            return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def wire(broker):
    connections: list[Wire] = []

    def connect() -> Wire:
        connections.append(Wire(broker.endpoint))
        return connections[-1]

    yield connect
    for connection in connections:
        connection.close()


def test_a_hand_written_zmtp_client_gets_mmi_answers(broker, wire):
    peer = wire()
    assert peer.handshake()[b"Socket-Type"] == b"ROUTER"
    peer.send(message(b"", mdp.CLIENT, mdp.MMI_SERVICE, b"nobody-serves-this"))
    assert peer.read_message() == [b"", mdp.CLIENT, mdp.MMI_SERVICE, b"404"]


def test_ping_is_answered_with_pong_carrying_its_context(broker, wire):
    peer = wire()
    peer.handshake(Identity=b"pinger")
    peer.send(command(b"PING", struct.pack(">H", 30) + b"ctx-1234"))
    flags, body = peer.read_frame()
    assert flags & COMMAND
    assert body == bytes([4]) + b"PONG" + b"ctx-1234"


def test_a_worker_spoken_by_hand_serves_a_pyzmq_client(broker, wire, peers):
    worker = wire()
    worker.handshake(Identity=b"hand-worker")
    worker.send(message(b"", mdp.WORKER, mdp.READY, b"echo"))
    client = peers.client(broker)
    # READY and the client's mmi.service query travel on two connections, which the broker may
    # read in either order: wait for the registration, within the same bound.
    wait_for_status(client, "echo", b"200", PROMPT, "the hand-spoken worker's READY registers it")
    client.send("echo", [b"x" * 300, b"", b"y"])
    request = worker.read_message()
    assert request[:3] == [b"", mdp.WORKER, mdp.REQUEST] and request[4:] == [b"", b"x" * 300, b"", b"y"]
    worker.send(message(b"", mdp.WORKER, mdp.REPLY, request[3], b"", b"x" * 300, b"", b"y"))
    assert client.recv(timeout=PROMPT).body == [b"x" * 300, b"", b"y"]


@pytest.mark.parametrize(
    "opening",
    [
        pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", id="http"),
        pytest.param(b"\x00" + os.urandom(4095), id="random-bytes"),
        pytest.param(greeting() + os.urandom(4096), id="random-bytes-after-greeting"),
        pytest.param(greeting(mechanism=b"CURVE"), id="unknown-mechanism"),
        pytest.param(greeting() + message(b"data before READY"), id="message-before-ready"),
        pytest.param(greeting() + ready(**{"Socket-Type": b"PUB"}), id="incompatible-socket-type"),
        pytest.param(greeting() + command(b"READY", b"\x05broken"), id="malformed-properties"),
    ],
)
def test_a_peer_that_breaks_the_wire_protocol_is_disconnected_and_others_carry_on(broker, wire, peers, opening):
    client = peers.client(broker)
    assert service_status(client, "echo", PROMPT) == b"404"
    stranger = wire()
    stranger.send(opening)
    assert stranger.closed_by_peer(), "the broker kept a connection that broke the protocol"
    assert service_status(client, "echo", PROMPT) == b"404", "the broker stopped answering"


def test_a_frame_claiming_a_huge_size_is_refused_without_waiting_for_it(broker, wire, peers):
    peer = wire()
    peer.handshake()
    peer.send(bytes([LONG]) + struct.pack(">Q", 1 << 40))
    assert peer.closed_by_peer()
    assert service_status(peers.client(broker), "echo", PROMPT) == b"404"


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_running_out_of_file_descriptors_neither_spins_nor_stops_the_broker(make_broker, peers):
    broker = make_broker(max_open_files=64)
    client = peers.client(broker)
    assert service_status(client, "echo", PROMPT) == b"404"
    host, port = broker.endpoint.removeprefix("tcp://").rsplit(":", 1)
    # More connections than the broker has descriptors for: the kernel queues the rest.
    hogs = [socket.create_connection((host, int(port)), timeout=PROMPT) for _ in range(100)]
    try:
        time.sleep(0.5)
        before = cpu_seconds(broker.process.pid)
        time.sleep(2.0)
        used = cpu_seconds(broker.process.pid) - before
        # Paused, it uses next to nothing (0.00 s here); spinning on the listener, most of a core.
        assert used < 0.25, f"the broker used {used:.2f} s of CPU in 2 s while out of descriptors"
        assert service_status(client, "echo", PROMPT) == b"404", "a client connected before stops being served"
    finally:
        for hog in hogs:
            hog.close()
    # Once descriptors are free again, new peers are accepted.
    assert service_status(peers.client(broker), "echo", 5.0) == b"404"
