"""Test harness: the broker under test as a subprocess, and the peers that talk to it.

Used by conftest.py (fixtures) and the test modules (helpers). Everything
here is bounded in time; waits raise instead of hanging.
"""

from __future__ import annotations

import os
import random
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import zmq

import mdp

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
DEFAULT_BROKER_BIN = ".build/debug/broker"
ECHO_WORKER = HERE / "echo_worker.py"

# How long a freshly started broker may take to answer its first mmi.service.
BROKER_READY_TIMEOUT = float(os.environ.get("INTEROP_BROKER_READY_TIMEOUT", "30"))
# How long SIGTERM may take before the broker is killed.
BROKER_STOP_TIMEOUT = 5.0
# How long any single reply that should come "right away" may take on a slow machine.
PROMPT = 5.0


class HarnessError(Exception):
    """The test environment could not be set up (as opposed to a broker behaving wrongly)."""


def broker_binary() -> Path:
    """The broker executable: $BROKER_BIN (relative paths from the repo root) or .build/debug/broker."""
    path = Path(os.environ.get("BROKER_BIN", DEFAULT_BROKER_BIN))
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not path.is_file():
        raise HarnessError(
            f"broker binary not found: {path}\n"
            f"  build it first (swift build --product broker) or point BROKER_BIN at it"
        )
    if not os.access(path, os.X_OK):
        raise HarnessError(f"broker binary is not executable: {path}")
    return path


def free_tcp_ports(count: int) -> list[int]:
    """Distinct ports free right now on 127.0.0.1, from below the kernel's ephemeral range: a port
    the kernel hands out itself (bind to 0) can be taken by an outgoing connection before the
    broker binds it."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    chosen: list[int] = []
    for _ in range(5000):
        if len(chosen) == count:
            break
        port = random.randrange(10000, max(low, 11000))
        if port in chosen:
            continue
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("127.0.0.1", port))
            chosen.append(port)
        except OSError:
            pass
        finally:
            s.close()
    if len(chosen) < count:
        raise HarnessError("no free ports below the ephemeral range")
    return chosen


def wait_until(predicate: Callable[[], Any], timeout: float, message: str = "", interval: float = 0.02) -> Any:
    """Poll `predicate` until it returns something truthy (returned); AssertionError after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(message or f"condition not met within {timeout}s")
        time.sleep(interval)


def echo(body: list[bytes]) -> list[bytes]:
    return body


def tagged(tag: str) -> Callable[[list[bytes]], list[bytes]]:
    """A handler that answers with `tag` followed by the request body."""
    return lambda body: [tag.encode(), *body]


def service_status(client: mdp.Client, service: mdp.Frame, timeout: float = 1.0) -> Optional[bytes]:
    """mmi.service's answer for `service`, or None if the broker did not answer within `timeout`."""
    try:
        return client.service_status(service, timeout)
    except mdp.Timeout:
        return None


def wait_for_status(client: mdp.Client, service: mdp.Frame, expected: bytes, timeout: float, why: str = "") -> float:
    """Poll mmi.service until it answers `expected`; returns how long that took."""
    started = time.monotonic()
    last: list[Optional[bytes]] = [None]

    def answered() -> bool:
        last[0] = service_status(client, service, timeout=min(1.0, max(0.1, timeout)))
        return last[0] == expected

    wait_until(
        answered,
        timeout,
        f"mmi.service {service!r} did not answer {expected!r} within {timeout:.2f}s "
        f"(last answer: {last[0]!r}){': ' + why if why else ''}",
    )
    return time.monotonic() - started


@dataclass(frozen=True)
class BrokerConfig:
    """What the tests tell the broker through its environment variables."""

    heartbeat_ms: int = 250
    liveness: int = 3
    request_timeout_ms: int = 1500
    max_open_files: Optional[int] = None  # RLIMIT_NOFILE of the broker process, when set

    @property
    def heartbeat(self) -> float:
        return self.heartbeat_ms / 1000

    @property
    def expiry(self) -> float:
        """How long a silent worker stays registered: interval x liveness."""
        return self.heartbeat * self.liveness

    @property
    def request_timeout(self) -> float:
        return self.request_timeout_ms / 1000


class Broker:
    """The broker binary as a subprocess on free local ports; output goes to `log_path`."""

    def __init__(self, binary: Path, config: BrokerConfig, log_path: Path, context: zmq.Context):
        self.binary = binary
        self.config = config
        self.log_path = log_path
        self._context = context
        mdp_port, xsub_port, xpub_port = free_tcp_ports(3)
        self.endpoint = f"tcp://127.0.0.1:{mdp_port}"
        self.events_xsub = f"tcp://127.0.0.1:{xsub_port}"
        self.events_xpub = f"tcp://127.0.0.1:{xpub_port}"
        self.process: Optional[subprocess.Popen] = None
        self._stopping = False

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            BROKER_BIND=self.endpoint,
            EVENTS_XSUB_BIND=self.events_xsub,
            EVENTS_XPUB_BIND=self.events_xpub,
            HEARTBEAT_INTERVAL_MS=str(self.config.heartbeat_ms),
            HEARTBEAT_LIVENESS=str(self.config.liveness),
            BROKER_REQUEST_TIMEOUT_MS=str(self.config.request_timeout_ms),
            LOG_LEVEL=os.environ.get("LOG_LEVEL", "info"),
            LOG_FORMAT=os.environ.get("LOG_FORMAT", "text"),
        )
        return env

    def start(self, ready_timeout: float = BROKER_READY_TIMEOUT) -> None:
        """Start the process and wait until it answers mmi.service."""
        assert not self.alive, "broker already running"
        self._stopping = False
        with open(self.log_path, "ab") as log:
            log.write(f"=== starting {self.binary} on {self.endpoint}\n".encode())
            log.flush()
            try:
                limit = self.config.max_open_files
                self.process = subprocess.Popen(
                    [str(self.binary)],
                    preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))) if limit else None,
                    env=self.environment(),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=REPO_ROOT,
                )
            except OSError as error:  # e.g. the binary is being rebuilt right now
                raise HarnessError(f"cannot start {self.binary}: {error}") from None
        self._wait_ready(ready_timeout)

    def _wait_ready(self, timeout: float) -> None:
        client = mdp.Client(self.endpoint, context=self._context)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise HarnessError(
                        f"broker exited with status {self.process.returncode} during startup\n{self.log_tail()}"
                    )
                try:
                    client.service_status("readiness-probe", timeout=0.25)
                    return
                except mdp.Timeout:
                    continue
                except mdp.ProtocolError as error:
                    raise HarnessError(f"broker answered mmi.service with invalid MDP: {error}") from None
        finally:
            client.close()
        self.stop()
        raise HarnessError(f"broker did not answer mmi.service within {timeout}s\n{self.log_tail()}")

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def died_unexpectedly(self) -> Optional[int]:
        """The exit status if the broker exited without being asked to, else None."""
        if self.process is None or self._stopping:
            return None
        return self.process.poll()

    def stop(self, timeout: float = BROKER_STOP_TIMEOUT) -> Optional[int]:
        """SIGTERM, then SIGKILL after `timeout`; returns the exit status."""
        if self.process is None:
            return None
        self._stopping = True
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        return self.process.returncode

    def log_tail(self, lines: int = 60) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no broker log)"
        return "\n".join(text.splitlines()[-lines:])


class WorkerThread(threading.Thread):
    """An mdp.Worker serving `handler(body) -> reply body` in a background thread.

    The socket is created and used only inside the thread. `registered` is
    set when the broker first addresses the worker (HEARTBEAT or REQUEST).
    """

    def __init__(
        self,
        context: zmq.Context,
        broker: Broker,
        service: mdp.Frame,
        handler: Callable[[list[bytes]], list[bytes]],
        name: str,
    ):
        super().__init__(name=f"mdp-worker-{name}", daemon=True)
        self.worker_name = name
        self.registered = threading.Event()
        self.requests: list[list[bytes]] = []
        self.events: list[tuple[str, str]] = []
        self.error: Optional[BaseException] = None
        self._context = context
        self._endpoint = broker.endpoint
        self._config = broker.config
        self._service = service
        self._handler = handler
        self._halt = threading.Event()
        self._send_disconnect = True
        self._reported_invalid = 0

    @property
    def reconnects(self) -> int:
        return sum(1 for name, _ in self.events if name == "reconnect")

    @property
    def invalid_messages(self) -> list[str]:
        """Messages from the broker that were not valid MDP/Worker (dropped by the worker)."""
        return [detail for name, detail in self.events if name == "invalid"]

    def _on_event(self, name: str, detail: str) -> None:
        self.events.append((name, detail))
        if name == "registered":
            self.registered.set()

    def run(self) -> None:
        try:
            worker = mdp.Worker(
                self._endpoint,
                self._service,
                heartbeat_interval=self._config.heartbeat,
                liveness=self._config.liveness,
                context=self._context,
                on_event=self._on_event,
            )
        except BaseException as error:  # noqa: BLE001 - reported by stop()
            self.error = error
            return
        try:
            while not self._halt.is_set():
                try:
                    client, body = worker.recv(timeout=0.05)
                except mdp.Timeout:
                    continue
                self.requests.append(body)
                worker.reply(client, self._handler(body))
            if self._send_disconnect:
                worker.disconnect()
        except BaseException as error:  # noqa: BLE001 - reported by stop()
            self.error = error
        finally:
            worker.close()

    def wait_registered(self, timeout: float) -> None:
        if not self.registered.wait(timeout):
            raise AssertionError(
                f"worker {self.worker_name} not addressed by the broker within {timeout}s "
                f"(no HEARTBEAT after READY); events: {self.events}"
            )

    def stop(self, disconnect: bool = True, timeout: float = 5.0) -> None:
        """Stop serving; by default send DISCONNECT first. Re-raises an error from the thread."""
        self._send_disconnect = disconnect
        self._halt.set()
        self.join(timeout)
        if self.is_alive():
            raise HarnessError(f"worker thread {self.worker_name} did not stop within {timeout}s")
        self.check()

    def check(self) -> None:
        """Raise what went wrong in the thread, once: an exception, or invalid messages from the broker."""
        error, self.error = self.error, None
        if error is not None:
            raise AssertionError(f"worker thread {self.worker_name} failed: {error!r}") from error
        invalid, self._reported_invalid = self.invalid_messages[self._reported_invalid :], len(self.invalid_messages)
        if invalid:
            raise AssertionError(
                f"worker {self.worker_name} received {len(invalid)} invalid MDP/Worker messages, e.g. {invalid[:3]}"
            )


class EchoWorkerProcess:
    """echo_worker.py as a subprocess; its stdout event lines are collected in `lines`."""

    def __init__(self, broker: Broker, service: str, *, sleep_op: bool = True, name: str = "echo"):
        self.name = name
        command = [
            sys.executable, "-u", str(ECHO_WORKER),
            "--broker", broker.endpoint,
            "--service", service,
            "--heartbeat-ms", str(broker.config.heartbeat_ms),
            "--liveness", str(broker.config.liveness),
        ]  # fmt: skip
        if sleep_op:
            command.append("--sleep-op")
        self.process = subprocess.Popen(
            command,
            cwd=HERE,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, name=f"echo-worker-{name}-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def count(self, line: str) -> int:
        return sum(1 for seen in list(self.lines) if seen == line)

    def wait_for(self, line: str, timeout: float, occurrences: int = 1) -> None:
        def seen() -> bool:
            if self.process.poll() is not None and self.count(line) < occurrences:
                raise AssertionError(
                    f"echo worker {self.name} exited ({self.process.returncode}) before {line!r}: {self.lines}"
                )
            return self.count(line) >= occurrences

        wait_until(seen, timeout, f"echo worker {self.name} did not print {line!r} within {timeout}s: {self.lines}")

    def kill(self) -> None:
        """SIGKILL: no DISCONNECT, no goodbye."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(5)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._reader.join(5)


class Peers:
    """Creates clients, workers and raw sockets for a test, and cleans them all up afterwards."""

    def __init__(self, context: zmq.Context):
        self.context = context
        self._sockets: list[Any] = []
        self._threads: list[WorkerThread] = []
        self._processes: list[EchoWorkerProcess] = []

    def client(self, broker: Broker) -> mdp.Client:
        client = mdp.Client(broker.endpoint, context=self.context)
        self._sockets.append(client)
        return client

    def worker(self, broker: Broker, service: mdp.Frame, **options: Any) -> mdp.Worker:
        """A worker driven by the test's own thread, with the broker's heartbeat settings."""
        options.setdefault("heartbeat_interval", broker.config.heartbeat)
        options.setdefault("liveness", broker.config.liveness)
        worker = mdp.Worker(broker.endpoint, service, context=self.context, **options)
        self._sockets.append(worker)
        return worker

    def raw(self, broker: Broker) -> mdp.RawPeer:
        peer = mdp.RawPeer(broker.endpoint, context=self.context)
        self._sockets.append(peer)
        return peer

    def serve(
        self,
        broker: Broker,
        service: mdp.Frame,
        handler: Callable[[list[bytes]], list[bytes]] = echo,
        *,
        name: str = "worker",
        wait_registered: bool = True,
    ) -> WorkerThread:
        """Start a WorkerThread; by default return once the broker has registered it."""
        thread = WorkerThread(self.context, broker, service, handler, name)
        self._threads.append(thread)
        thread.start()
        if wait_registered:
            thread.wait_registered(timeout=max(5.0, 10 * broker.config.heartbeat))
        return thread

    def echo_process(self, broker: Broker, service: str, *, sleep_op: bool = True, name: str = "echo") -> EchoWorkerProcess:
        process = EchoWorkerProcess(broker, service, sleep_op=sleep_op, name=name)
        self._processes.append(process)
        return process

    def close(self) -> None:
        errors = []
        for thread in self._threads:
            try:
                if thread.is_alive():
                    thread.stop()
                else:
                    thread.check()
            except BaseException as error:  # noqa: BLE001 - collected, raised below
                errors.append(error)
        for process in self._processes:
            process.stop()
        for peer in self._sockets:
            peer.close()
        if errors:
            raise errors[0]
