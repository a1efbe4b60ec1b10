"""Idle workers of a service are used least recently used first."""

from __future__ import annotations

from harness import PROMPT, tagged


def test_idle_workers_are_used_least_recently_used_first(broker, peers):
    # Registered one after the other: serve() returns once the broker has addressed the worker.
    for name in ("A", "B", "C"):
        peers.serve(broker, "lru", tagged(name), name=name)
    client = peers.client(broker)

    served_by = [client.request("lru", [b"who?"], timeout=PROMPT)[0] for _ in range(7)]

    assert served_by == [b"A", b"B", b"C", b"A", b"B", b"C", b"A"]
