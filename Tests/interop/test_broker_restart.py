"""Workers find a restarted broker on the same endpoint and register again."""

from __future__ import annotations

import pytest

from harness import PROMPT, wait_for_status, wait_until


@pytest.mark.parametrize("notice_first", [True, False], ids=["worker-notices-outage", "quick-restart"])
def test_worker_reregisters_after_broker_restart(broker, peers, notice_first):
    worker = peers.serve(broker, "echo")
    client = peers.client(broker)
    assert client.request("echo", [b"before"], timeout=PROMPT) == [b"before"]

    broker.stop()
    assert not broker.alive
    if notice_first:
        # Either the broker said DISCONNECT on its way out, or the worker sees it silent.
        wait_until(lambda: worker.reconnects >= 1, broker.config.expiry + PROMPT, "worker did not notice the outage")
    broker.start()

    fresh = peers.client(broker)
    wait_for_status(fresh, "echo", b"200", 2 * broker.config.expiry + PROMPT, "the worker should READY again")
    assert fresh.request("echo", [b"after"], timeout=PROMPT) == [b"after"]
    assert worker.reconnects >= 1
    worker.check()
