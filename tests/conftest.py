"""The shared cast and servers for every suite.

alice owns things, bob is another user who must never see them. The Postgres and Redis are the real
embedded servers (one per test session, under MEMORYAPP_VAR_DIR); the language model is the scripted
OpenAI-protocol server in tests/support.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.support import servers
from tests.support.browser import PASSWORD  # noqa: F401  (one password for every suite)
from tests.support.fixtures import llm_server, scripted_llm, use_offline_llm, use_scripted_llm  # noqa: F401
from tests.support.servers import app_server, celery_worker, session_llm_server  # noqa: F401


def pytest_configure(config):
    """The suite's own process connects without the pool (DB_POOL_SIZE). Tests call the ORM from threads of
    their own that nothing closes (plain sync_to_async, executors), and each such thread would keep a pooled
    connection for the rest of the session: the pool then ran dry after a Postgres restart. The app's
    processes the suite starts (Daphne, the worker) keep the default pool, and the Postgres-restart test
    covers it there."""
    from django.conf import settings

    settings.DATABASES["default"].get("OPTIONS", {}).pop("pool", None)


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password=PASSWORD)


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password=PASSWORD)


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture(autouse=True)
def settled_pipeline(request, _django_db_marker):
    """After a test with committed data, let the session's Celery worker finish what the test queued
    (opening a chat ends the others, which queues their extraction) before the database is flushed."""
    yield
    marker = request.node.get_closest_marker("django_db")
    if servers.running_worker and marker and marker.kwargs.get("transaction"):
        from django.conf import settings

        servers.wait_until_idle(settings.REDIS_URL, servers.running_worker)


@pytest.fixture(autouse=True)
def fresh_llm_script(request):
    """The browser suites share one scripted model for the session: an answer a failed test scripted and
    never used must not become the next test's reply (one slow turn once failed six tests in a row)."""
    yield
    if "session_llm_server" in request.fixturenames:
        request.getfixturevalue("session_llm_server").forget_script()


@pytest.fixture(autouse=True)
def no_working_memory_left(request):
    """Working memory lives in Redis, which outlives the database's flush: a chat of an earlier test, its
    ids reused, must not hand its entries to the next (tests that never touch the database skip this)."""
    if "_django_db_marker" in request.fixturenames and request.node.get_closest_marker("django_db"):
        from memoryapp.engine.chat_state import store

        try:
            client = store._redis()
            for name in client.scan_iter(match="short:work:*", count=1000):
                client.delete(name)
        except Exception:  # a test of the Redis-down path left it stopped: nothing to leak
            pass
    yield


@pytest.fixture(scope="session", autouse=True)
def embedded_servers():
    """The suite's own embedded Postgres and Redis under MEMORYAPP_VAR_DIR, started before any test
    (settings only name them). Stopped in pytest_sessionfinish."""
    from memoryapp.stack.control import start_embedded

    start_embedded()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    # Debian's Chromium from apt; Playwright's own browser download cannot run here.
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    }


def pytest_sessionfinish(session, exitstatus):
    """Stop the embedded servers this session started (tests own var/test; the app's var/ is untouched)."""
    import os

    from django.conf import settings

    if not settings.configured or os.environ.get("MEMORYAPP_KEEP_SERVERS") == "True":
        return
    from memoryapp.stack.control import stop_embedded

    stop_embedded()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Browser tests last: Playwright's sync API leaves an event loop running on the main thread,
    after which async tests (websocket consumers) cannot start theirs."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
