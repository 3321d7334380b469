from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module", autouse=True)
def _orm_beside_playwright(app_server):
    """Playwright's sync API keeps an event loop on the test thread; the test's own ORM calls are sync.

    Only browser modules get this, and only after Daphne started (it must not inherit it).
    Module-scoped so it outlives the database flush at each test's end.
    """
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
