"""One asyncio event loop per process, on its own thread, for the async graph clients.

graphiti and the FalkorDB asyncio client bind connections to the loop that made them, while
Django's ORM and Celery's prefork workers are synchronous. Sync callers hand coroutines to this
loop and wait with a deadline; a fork (Celery prefork) gets a fresh loop in the child.

Never call `run()` from inside a running event loop on the same thread: async callers use
`sync_to_async(...)` / `asyncio.to_thread(...)` around the sync graph functions.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from .errors import GraphUnavailable

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_pid: int | None = None
_state: dict[str, Any] = {}  # per-loop caches (clients, drivers); dropped with the loop


def _ensure_loop() -> asyncio.AbstractEventLoop:
    global _loop, _pid
    with _lock:
        if _loop is None or _pid != os.getpid() or not _loop.is_running():
            _state.clear()  # clients belong to the old loop (or the parent process)
            loop = asyncio.new_event_loop()
            started = threading.Event()
            loop.call_soon(started.set)
            thread = threading.Thread(target=loop.run_forever, name="memoryapp-graph-loop", daemon=True)
            thread.start()
            started.wait(5)
            _loop, _pid = loop, os.getpid()
        return _loop


def loop_state() -> dict[str, Any]:
    """A dict living as long as the loop: cache async clients here (only touch it on the loop)."""
    return _state


def run(coro: Coroutine[Any, Any, T], timeout: float, what: str = "the graph") -> T:
    """Run `coro` on the graph loop and wait at most `timeout` seconds for its result."""
    loop = _ensure_loop()
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise GraphUnavailable(f"{what} did not answer within {timeout:g} s") from None


def reset() -> None:
    """Forget cached clients (settings changed); the next call builds new ones on the same loop."""
    loop = _loop
    if loop is None or _pid != os.getpid() or not loop.is_running():
        _state.clear()
        return

    async def _close() -> None:
        for value in list(_state.values()):
            closer = getattr(value, "aclose", None)
            if closer is not None:
                try:
                    await closer()
                except Exception:  # a dead connection closes badly; it is being dropped anyway
                    pass
        _state.clear()

    try:
        asyncio.run_coroutine_threadsafe(_close(), loop).result(5)
    except Exception:
        _state.clear()
