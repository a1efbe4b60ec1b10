"""A worker that says DISCONNECT gets nothing more; its service's requests wait for another worker."""

from __future__ import annotations

import mdp
from harness import PROMPT, tagged, wait_for_status


def test_disconnected_worker_gets_no_more_requests(make_broker, peers):
    # Expiry is 3 s here: unregistering within 1.5 s is due to the DISCONNECT.
    broker = make_broker(heartbeat_ms=1000, request_timeout_ms=8000)
    client = peers.client(broker)
    leaving = peers.raw(broker)
    leaving.send(mdp.worker_message(mdp.READY, "jobs"))
    wait_for_status(client, "jobs", b"200", PROMPT)

    leaving.send(mdp.worker_message(mdp.DISCONNECT))
    limit = broker.config.expiry / 2
    took = wait_for_status(client, "jobs", b"404", limit, "DISCONNECT must unregister the worker")
    assert took <= limit

    # The broker has processed the DISCONNECT; anything it sent before may still be in flight.
    leaving.collect(0.2)
    client.send("jobs", [b"after goodbye"])
    after = [mdp.describe(frames) for _, frames in leaving.collect(1.5)]
    assert not after, f"the broker sent {after} to a worker that had disconnected"

    peers.serve(broker, "jobs", tagged("next"), name="next")
    reply = client.recv(timeout=PROMPT)
    assert reply.frames == [b"", b"MDPC01", b"jobs", b"next", b"after goodbye"]
