"""Majordomo Protocol peers for interoperability tests.

Implements the client and worker sides of MDP/0.1 (ZeroMQ RFC 7) and the
MMI management namespace (ZeroMQ RFC 8), written from the specifications:

    client  -> broker   ["", "MDPC01", service, body...]              REQUEST
    broker  -> client   ["", "MDPC01", service, body...]              REPLY
    worker  -> broker   ["", "MDPW01", 0x01, service]                 READY
    broker  -> worker   ["", "MDPW01", 0x02, client, "", body...]     REQUEST
    worker  -> broker   ["", "MDPW01", 0x03, client, "", body...]     REPLY
    either  -> other    ["", "MDPW01", 0x04]                          HEARTBEAT
    either  -> other    ["", "MDPW01", 0x05]                          DISCONNECT

Both peers use DEALER sockets, so the empty frame 0 is written explicitly.
`RawPeer` and the `*_message` builders send arbitrary frames, for tests
that deliberately break the protocol.

All timeouts are in seconds; nothing in this module blocks without one
unless the caller passes `timeout=None` explicitly.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Union

import zmq

CLIENT = b"MDPC01"
WORKER = b"MDPW01"

READY = b"\x01"
REQUEST = b"\x02"
REPLY = b"\x03"
HEARTBEAT = b"\x04"
DISCONNECT = b"\x05"

COMMAND_NAMES = {
    READY: "READY",
    REQUEST: "REQUEST",
    REPLY: "REPLY",
    HEARTBEAT: "HEARTBEAT",
    DISCONNECT: "DISCONNECT",
}

MMI_SERVICE = b"mmi.service"

Frame = Union[bytes, str]


class Timeout(Exception):
    """Nothing arrived before the deadline."""


class ProtocolError(Exception):
    """The broker sent something that is not valid MDP for this peer."""


def to_bytes(frame: Frame) -> bytes:
    return frame.encode("utf-8") if isinstance(frame, str) else bytes(frame)


def client_message(service: Frame, *body: Frame) -> list[bytes]:
    """An MDP/Client REQUEST as sent by a DEALER (no validation)."""
    return [b"", CLIENT, to_bytes(service), *map(to_bytes, body)]


def worker_message(command: bytes, *frames: Frame) -> list[bytes]:
    """An MDP/Worker command as sent by a DEALER (no validation)."""
    return [b"", WORKER, command, *map(to_bytes, frames)]


def worker_command(frames: list[bytes]) -> Optional[bytes]:
    """The command byte of a broker-to-worker message, or None if the header is not MDP/Worker."""
    if len(frames) >= 3 and frames[0] == b"" and frames[1] == WORKER:
        return frames[2]
    return None


def describe(frames: list[bytes]) -> str:
    """A short human-readable rendering of a message, for assertion messages."""
    command = worker_command(frames)
    name = COMMAND_NAMES.get(command) if command is not None else None
    shown = [f[:40] for f in frames[:8]]
    suffix = f" (+{len(frames) - 8} frames)" if len(frames) > 8 else ""
    return f"{name or 'message'} {shown}{suffix}"


def _milliseconds(seconds: Optional[float]) -> Optional[int]:
    if seconds is None:
        return None
    return max(0, math.ceil(seconds * 1000))


def _dealer(context: zmq.Context, endpoint: str) -> zmq.Socket:
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    return socket


def _body(frames: Iterable[Frame]) -> list[bytes]:
    body = [to_bytes(f) for f in frames]
    if not body:
        raise ValueError("an MDP body has at least one frame (RFC 7: 4+ / 6+ frame messages)")
    return body


@dataclass(frozen=True)
class Reply:
    """A reply as received by a client: the service frame, the body, and every frame as it arrived."""

    service: bytes
    body: list[bytes]
    frames: list[bytes]


class Client:
    """MDP/Client over a DEALER socket.

    `request()` is the synchronous call. `send()` and `recv()` are its two
    halves, for tests that act between sending and receiving. After a
    `request()` times out the socket is replaced (RFC 7's recommended
    recovery), so a late reply can never be taken for the next one.
    """

    def __init__(self, broker: str, *, context: Optional[zmq.Context] = None):
        self.broker = broker
        self._context = context or zmq.Context.instance()
        self._socket = _dealer(self._context, broker)

    def send(self, service: Frame, body: Iterable[Frame]) -> None:
        self._socket.send_multipart(client_message(service, *_body(body)))

    def recv(self, timeout: Optional[float]) -> Reply:
        if not self._socket.poll(_milliseconds(timeout)):
            raise Timeout(f"no reply from {self.broker} within {timeout}s")
        frames = self._socket.recv_multipart()
        if len(frames) < 3 or frames[0] != b"" or frames[1] != CLIENT:
            raise ProtocolError(f"not an MDP/Client reply: {describe(frames)}")
        return Reply(service=frames[2], body=frames[3:], frames=frames)

    def request(self, service: Frame, body: Iterable[Frame], timeout: float) -> list[bytes]:
        """Send a request and return the reply body; raises Timeout."""
        service = to_bytes(service)
        self.send(service, body)
        try:
            reply = self.recv(timeout)
        except Timeout:
            self.reset()
            raise
        if reply.service != service:
            raise ProtocolError(f"reply for service {reply.service!r}, expected {service!r}")
        return reply.body

    def service_status(self, name: Frame, timeout: float) -> bytes:
        """Ask MMI whether `name` has a worker: b"200", b"404" (or whatever the broker says)."""
        body = self.request(MMI_SERVICE, [name], timeout)
        if len(body) != 1:
            raise ProtocolError(f"mmi.service answered with {len(body)} frames: {body!r}")
        return body[0]

    def reset(self) -> None:
        """Drop the socket (and anything in flight) and connect a fresh one."""
        self._socket.close(linger=0)
        self._socket = _dealer(self._context, self.broker)

    def close(self) -> None:
        self._socket.close(linger=0)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Worker:
    """MDP/Worker over a DEALER socket, single-threaded.

    The worker heartbeats and watches the broker only while one of its
    methods runs: `recv()` while waiting for work, `keep_alive()` while busy.
    A handler that takes longer than the broker's expiry must therefore do
    its work in slices and call `keep_alive()` between them (see
    echo_worker.py), or run in another thread while this one calls it.

    Liveness: any valid message from the broker proves it alive. If nothing
    arrives for `heartbeat_interval * liveness` while waiting for work, or if
    the broker sends DISCONNECT, the worker closes its socket, opens a new
    one and sends READY again (RFC 7, "Opening and Closing a Connection").
    Requests taken on a connection that has since been replaced are
    forgotten: `reply()` to them sends nothing and returns False.

    `on_event(name, detail)` is called on "ready" (READY sent), "registered"
    (first HEARTBEAT or REQUEST on this connection: the broker only addresses
    workers it has registered), "reconnect" (detail: why) and "invalid"
    (a message that is not valid MDP/Worker was dropped).
    """

    def __init__(
        self,
        broker: str,
        service: Frame,
        *,
        heartbeat_interval: float = 2.5,
        liveness: int = 3,
        reconnect_delay: Optional[float] = None,
        context: Optional[zmq.Context] = None,
        on_event: Optional[Callable[[str, str], None]] = None,
    ):
        self.broker = broker
        self.service = to_bytes(service)
        self.heartbeat_interval = heartbeat_interval
        self.liveness = liveness
        self.reconnect_delay = heartbeat_interval if reconnect_delay is None else reconnect_delay
        self.reconnects = 0
        self._context = context or zmq.Context.instance()
        self._on_event = on_event
        self._socket: Optional[zmq.Socket] = None
        self._reconnect_at = 0.0
        self._next_heartbeat = 0.0
        self._broker_expires = 0.0
        self._registered = False
        self._pending: deque[tuple[bytes, list[bytes]]] = deque()
        self._awaiting_reply: set[bytes] = set()
        self._closed = False
        self._connect()

    # -- public API -------------------------------------------------------

    def recv(self, timeout: Optional[float] = None) -> tuple[bytes, list[bytes]]:
        """Wait for the next request: returns (client_address, body); raises Timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._pending:
            if deadline is not None and time.monotonic() >= deadline:
                raise Timeout(f"no request for {self.service!r} within {timeout}s")
            self._pump(deadline, watch_broker=True)
        client, body = self._pending.popleft()
        self._awaiting_reply.add(client)
        return client, body

    def reply(self, client_address: bytes, body: Iterable[Frame]) -> bool:
        """Answer a request taken with recv(); False if it belonged to a dropped connection."""
        body = _body(body)
        if client_address not in self._awaiting_reply:
            return False
        self._awaiting_reply.discard(client_address)
        self._send(REPLY, client_address, b"", *body)
        return True

    def keep_alive(self, seconds: float) -> None:
        """Stay present while busy: heartbeat and answer the broker for `seconds`.

        Broker silence is not acted on while busy (a broker need not
        heartbeat busy workers, and reconnecting would lose the request in
        hand); the silence clock restarts afterwards. Requests arriving
        meanwhile are kept for the next recv().
        """
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._pump(deadline, watch_broker=False)
        self._broker_expires = max(self._broker_expires, time.monotonic() + self.heartbeat_interval * self.liveness)

    def disconnect(self, flush_timeout: float = 1.0) -> None:
        """Send DISCONNECT and close; the worker cannot be used afterwards.

        The socket lingers up to `flush_timeout` so the DISCONNECT is not
        discarded on close.
        """
        if self._socket is not None:
            self._socket.send_multipart(worker_message(DISCONNECT))
            self._socket.close(linger=_milliseconds(flush_timeout))
            self._socket = None
        self.close()

    def close(self) -> None:
        self._closed = True
        if self._socket is not None:
            self._socket.close(linger=0)
            self._socket = None

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- connection management ---------------------------------------------

    def _connect(self) -> None:
        self._socket = _dealer(self._context, self.broker)
        self._registered = False
        now = time.monotonic()
        self._broker_expires = now + self.heartbeat_interval * self.liveness
        self._send(READY, self.service)
        self._event("ready", self.broker)

    def _reconnect(self, reason: str, delay: float) -> None:
        """Close the socket now; a new one is opened after `delay` by _pump()."""
        self._socket.close(linger=0)
        self._socket = None
        self._pending.clear()
        self._awaiting_reply.clear()
        self._reconnect_at = time.monotonic() + delay
        self.reconnects += 1
        self._event("reconnect", reason)

    def _send(self, command: bytes, *frames: bytes) -> None:
        self._socket.send_multipart(worker_message(command, *frames))
        # Any command counts as a heartbeat (RFC 7 "Heartbeating").
        self._next_heartbeat = time.monotonic() + self.heartbeat_interval

    def _event(self, name: str, detail: str = "") -> None:
        if self._on_event is not None:
            self._on_event(name, detail)

    # -- the loop -----------------------------------------------------------

    def _pump(self, deadline: Optional[float], *, watch_broker: bool) -> None:
        """Do one round of I/O and timers, returning no later than `deadline`."""
        if self._closed:
            raise RuntimeError("worker is closed")
        now = time.monotonic()

        if self._socket is None:  # between a DISCONNECT and the new connection
            wake = self._reconnect_at if deadline is None else min(deadline, self._reconnect_at)
            time.sleep(max(0.0, wake - now))
            if time.monotonic() >= self._reconnect_at:
                self._connect()
            return

        wake = [self._next_heartbeat]
        if watch_broker:
            wake.append(self._broker_expires)
        if deadline is not None:
            wake.append(deadline)
        if self._socket.poll(_milliseconds(min(wake) - now)):
            self._handle(self._socket.recv_multipart())
            if self._socket is None:
                return

        now = time.monotonic()
        if now >= self._next_heartbeat:
            self._send(HEARTBEAT)
        if watch_broker and now >= self._broker_expires:
            self._reconnect("broker silent", delay=0.0)

    def _handle(self, frames: list[bytes]) -> None:
        command = worker_command(frames)
        if command is None:
            self._event("invalid", describe(frames))
            return

        if command == REQUEST and len(frames) >= 6 and frames[4] == b"":
            self._pending.append((frames[3], frames[5:]))
        elif command == HEARTBEAT and len(frames) == 3:
            pass
        elif command == DISCONNECT:
            self._reconnect("DISCONNECT from broker", delay=self.reconnect_delay)
            return
        else:
            self._event("invalid", describe(frames))
            return

        self._broker_expires = time.monotonic() + self.heartbeat_interval * self.liveness
        if not self._registered:
            self._registered = True
            self._event("registered", self.broker)


class RawPeer:
    """A bare DEALER connected to the broker, for sending arbitrary (even invalid) messages."""

    def __init__(self, broker: str, *, context: Optional[zmq.Context] = None):
        self.broker = broker
        self._socket = _dealer(context or zmq.Context.instance(), broker)

    def send(self, frames: list[Frame]) -> None:
        self._socket.send_multipart([to_bytes(f) for f in frames])

    def recv(self, timeout: Optional[float]) -> list[bytes]:
        if not self._socket.poll(_milliseconds(timeout)):
            raise Timeout(f"nothing from {self.broker} within {timeout}s")
        return self._socket.recv_multipart()

    def recv_until(
        self, accept: Callable[[list[bytes]], bool], timeout: float
    ) -> tuple[list[bytes], list[list[bytes]]]:
        """Receive until a message satisfies `accept`; returns it and the messages skipped before it."""
        deadline = time.monotonic() + timeout
        skipped: list[list[bytes]] = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                frames = self.recv(max(0.0, remaining))
            except Timeout:
                raise Timeout(
                    f"no matching message within {timeout}s; got {[describe(m) for m in skipped]}"
                ) from None
            if accept(frames):
                return frames, skipped
            skipped.append(frames)

    def collect(self, duration: float) -> list[tuple[float, list[bytes]]]:
        """Every message received during `duration` seconds, with its arrival time (monotonic)."""
        deadline = time.monotonic() + duration
        received = []
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                frames = self.recv(remaining)
            except Timeout:
                break
            received.append((time.monotonic(), frames))
        return received

    def close(self) -> None:
        self._socket.close(linger=0)

    def __enter__(self) -> "RawPeer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
