#!/usr/bin/env python3
"""An MDP echo worker, run as its own process by the interop tests.

    python3 echo_worker.py --broker tcp://127.0.0.1:5555 --service echo [--sleep-op]

Replies to every request with the request body, unchanged. With --sleep-op,
a request whose first frame is b"sleep" makes the worker wait the number of
seconds given in the second frame before echoing; it keeps heartbeating the
whole time, so the broker sees a busy but live worker.

Prints one line per event on stdout (flushed) so a test can follow it:
"ready", "registered", "reconnect <why>", "busy", "replied", "stopped".
SIGTERM or SIGINT sends DISCONNECT and exits 0.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time

import mdp

SLICE = 0.1  # seconds between checks for a stop signal while sleeping


def emit(line: str) -> None:
    print(line, flush=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--broker", required=True, help="broker endpoint, e.g. tcp://127.0.0.1:5555")
    parser.add_argument("--service", default="echo")
    parser.add_argument("--sleep-op", action="store_true", help='honour ["sleep", seconds] requests')
    parser.add_argument(
        "--heartbeat-ms",
        type=int,
        default=int(os.environ.get("HEARTBEAT_INTERVAL_MS", "2500")),
        help="heartbeat interval, must match the broker (default: $HEARTBEAT_INTERVAL_MS or 2500)",
    )
    parser.add_argument(
        "--liveness",
        type=int,
        default=int(os.environ.get("HEARTBEAT_LIVENESS", "3")),
        help="missed heartbeats before the broker is considered gone (default: $HEARTBEAT_LIVENESS or 3)",
    )
    return parser.parse_args(argv)


def sleep_seconds(body: list[bytes]) -> float | None:
    """The duration of a ["sleep", seconds, ...] request, or None for anything else."""
    if len(body) >= 2 and body[0] == b"sleep":
        try:
            return max(0.0, float(body[1].decode("ascii")))
        except (UnicodeDecodeError, ValueError):
            return None
    return None


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())

    worker = mdp.Worker(
        args.broker,
        args.service,
        heartbeat_interval=args.heartbeat_ms / 1000,
        liveness=args.liveness,
        on_event=lambda name, detail: emit(name if name in ("ready", "registered") else f"{name} {detail}"),
    )
    try:
        while not stop.is_set():
            try:
                client, body = worker.recv(timeout=SLICE)
            except mdp.Timeout:
                continue
            emit("busy")
            seconds = sleep_seconds(body) if args.sleep_op else None
            if seconds is not None:
                finish = time.monotonic() + seconds
                while not stop.is_set() and (left := finish - time.monotonic()) > 0:
                    worker.keep_alive(min(SLICE, left))
            if stop.is_set():
                break
            if worker.reply(client, body):
                emit("replied")
        worker.disconnect()
    finally:
        worker.close()
    emit("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
