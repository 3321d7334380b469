"""The graph loop thread: results come back, and a slow coroutine becomes GraphUnavailable in time."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from memoryapp.graph import runner
from memoryapp.graph.errors import GraphUnavailable


async def answer(value: int) -> tuple[int, str]:
    await asyncio.sleep(0)
    return value, threading.current_thread().name


def test_it_runs_coroutines_on_its_own_loop_thread():
    assert runner.run(answer(42), timeout=2) == (42, "memoryapp-graph-loop")


def test_it_gives_up_at_the_deadline():
    started = time.monotonic()
    with pytest.raises(GraphUnavailable, match="did not answer within 0.2 s"):
        runner.run(asyncio.sleep(5), timeout=0.2, what="the test graph")
    assert time.monotonic() - started < 0.5
    assert runner.run(answer(1), timeout=2)[0] == 1  # the loop is still usable


def test_it_raises_what_the_coroutine_raised():
    async def boom() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError):
        runner.run(boom(), timeout=2)
