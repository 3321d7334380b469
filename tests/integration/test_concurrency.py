"""Many users at once (the bounded load of bench/load.py, shortened): ten chat sessions over the
real websocket and API readers against the live Daphne; no error, every message answered.
The two-minute, fifty-session run and its latencies are in docs/benchmarks/speed.md."""

from __future__ import annotations

import argparse
import asyncio

import pytest

from bench.load import drive, lost_messages, make_actors

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_ten_chat_sessions_and_api_readers_at_once_lose_nothing(app_server):
    actors = make_actors(10, "test")
    args = argparse.Namespace(duration=8, think=0.5, readers=3, seed=1)

    tally = asyncio.run(drive(app_server.url, actors, args))

    assert not tally.errors, tally.examples
    assert len(tally.latencies["chat turn (whole reply)"]) >= 10  # every session got at least one reply
    assert sum(len(v) for k, v in tally.latencies.items() if k.startswith(("GET", "POST"))) >= 10
    assert lost_messages(actors) == 0
