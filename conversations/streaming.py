"""A blocking iterator (the model's reply stream) read in a thread of its own, its items handed to the
event loop as they come.

Reading each delta through `sync_to_async(next)` held one of the loop's few default-executor threads
per delta while the model was silent: under bench.load 50 streaming replies queued every other turn's
recall behind them (p50 0.5 s, p95 4.3 s waiting for a thread before the turn could start). Here a
stream holds one thread of its own pool, which only waits on the network, for as long as it lasts.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from django.conf import settings
from django.db import connections

T = TypeVar("T")
_END = object()
_pool: ThreadPoolExecutor | None = None


def _stream_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:  # threads start as streams need them, up to CHAT_STREAM_THREADS
        _pool = ThreadPoolExecutor(max_workers=settings.CHAT_STREAM_THREADS, thread_name_prefix="chat-stream")
    return _pool


async def iterate_in_thread(open_items: Callable[[], Iterator[T]]) -> AsyncIterator[T]:
    """The items of `open_items()`, opened and read in a stream thread; its exception is raised here.
    Closing or cancelling this stops the reading after the item in flight and closes the iterator there
    (a generator is closed by the thread that runs it)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    stop = threading.Event()

    def hand_over(item, error: BaseException | None = None) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, (item, error))
        except RuntimeError:  # the loop closed (the server stopping): nobody waits for it
            stop.set()

    def pump() -> None:
        items = None
        try:
            items = open_items()
            for item in items:
                if stop.is_set():
                    break
                hand_over(item)
        except BaseException as exc:  # handed to the reader, raised there
            hand_over(_END, exc)
            return
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()
            # A reply that read the database here holds a pooled connection until it is closed: give it
            # back, or CHAT_STREAM_THREADS threads would keep DB_POOL_SIZE connections out for good.
            connections.close_all()
        hand_over(_END)

    # In this context's copy, as asyncio.to_thread runs a function: the active language goes along.
    loop.run_in_executor(_stream_pool(), contextvars.copy_context().run, pump)
    try:
        while True:
            item, error = await queue.get()
            if item is _END:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        stop.set()
