"""Fixtures: a fresh broker subprocess per test, and the peers that talk to it.

The broker binary is $BROKER_BIN (relative paths resolve from the repo root)
or .build/debug/broker. Each broker gets its own free ports, short
heartbeats and a short request timeout (see harness.BrokerConfig); tests
that need other settings call `make_broker(...)`. A missing binary is a
test error, not a skip. Set LOG_LEVEL / LOG_FORMAT to change the broker's
logging; its output is attached to the report of a failing test.
"""

from __future__ import annotations

from typing import Callable, Iterator, TypeVar

import pytest
import zmq

from harness import Broker, BrokerConfig, HarnessError, Peers, broker_binary

T = TypeVar("T")


def harness_call(function: Callable[[], T]) -> T:
    """Run a set-up step; a HarnessError becomes a plain failure message without a traceback."""
    try:
        return function()
    except HarnessError as error:
        message = str(error)
    pytest.fail(message, pytrace=False)


@pytest.fixture
def zmq_context() -> Iterator[zmq.Context]:
    context = zmq.Context()
    yield context
    context.destroy(linger=0)


@pytest.fixture
def make_broker(request, tmp_path, zmq_context) -> Iterator[Callable[..., Broker]]:
    """make_broker(heartbeat_ms=..., liveness=..., request_timeout_ms=...) -> a started, ready Broker."""
    binary = harness_call(broker_binary)
    brokers: list[Broker] = []
    request.node.interop_brokers = brokers

    def start(**settings) -> Broker:
        broker = Broker(binary, BrokerConfig(**settings), tmp_path / f"broker-{len(brokers)}.log", zmq_context)
        brokers.append(broker)
        harness_call(broker.start)
        return broker

    yield start

    crashed = [(b, b.died_unexpectedly()) for b in brokers if b.died_unexpectedly() is not None]
    for broker in brokers:
        broker.stop()
    if crashed:
        broker, status = crashed[0]
        pytest.fail(f"broker exited on its own during the test (status {status})\n{broker.log_tail()}", pytrace=False)


@pytest.fixture
def broker(make_broker) -> Broker:
    """A broker with the default test settings (250 ms heartbeat, liveness 3, 1500 ms request timeout)."""
    return make_broker()


@pytest.fixture
def peers(zmq_context) -> Iterator[Peers]:
    peers = Peers(zmq_context)
    yield peers
    peers.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for index, broker in enumerate(getattr(item, "interop_brokers", [])):
            report.sections.append((f"broker {index} log ({broker.log_path})", broker.log_tail()))
