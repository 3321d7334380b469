"""Running ORM work beside Playwright's sync API."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor


def off_loop(fn, *args, **kwargs):
    """Call `fn` on another thread: an after-commit publish (async_to_sync) refuses the running event
    loop that Playwright keeps on the test thread."""

    def call():
        from django.db import connection

        try:
            return fn(*args, **kwargs)
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()
