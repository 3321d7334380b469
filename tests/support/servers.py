"""Real app processes for browser and pipeline tests: Daphne (HTTP + websockets) and a Celery worker
(tests/support/processes.py), run against the pytest-django test database and the suite's embedded Redis.

Tests that use them need committed data: mark them `django_db(transaction=True)`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from .llm_server import ScriptedLLMServer
from .processes import start_daphne, start_worker, stop_process, wait_until_idle  # noqa: F401  (re-exported)

# The session's Celery worker, once a test asked for it: tests with committed data wait for it to go idle
# before their data is flushed (its jobs write rows; a write in flight deadlocks against the TRUNCATE).
running_worker: str | None = None


def test_database_url() -> str:
    """settings.DATABASE_URL with the database name pytest-django created."""
    parts = urlsplit(settings.DATABASE_URL)
    return urlunsplit(parts._replace(path="/" + settings.DATABASES["default"]["NAME"]))


def app_env(llm_url: str | None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "PYTEST_")) and k != "DJANGO_ALLOW_ASYNC_UNSAFE"
    }
    env.update(
        DATABASE_URL=test_database_url(),
        REDIS_URL=settings.REDIS_URL,
        MEMORYAPP_VAR_DIR=str(settings.VAR_DIR),
        PYTHONUNBUFFERED="1",
        LLM_TIMEOUT_SECONDS="5",
        # The graph has its own suites; here its syncs would eat the answers scripted for chat.
        GRAPH_BACKEND="off",
        # The write limit has its own test; here it would turn the API fuzz into 429s.
        API_WRITES_PER_MINUTE="100000",
        # Every OAuth test registers a client and asks for tokens from 127.0.0.1; the limits have their own tests.
        OAUTH_REGISTRATIONS_PER_HOUR="100000",
        OAUTH_TOKEN_REQUESTS_PER_MINUTE="100000",
        # A chat whose tab left ends (a temporary one is discarded) this long after, not a minute.
        CHAT_TAB_GRACE_SECONDS="3",
    )
    if llm_url:
        env.update(OPENAI_BASE_URL=llm_url, OPENAI_API_KEY="test-key", LLM_MODEL="scripted-model")
    return env


@dataclass
class AppServer:
    url: str
    llm: ScriptedLLMServer
    log: Path


@pytest.fixture(scope="session")
def session_llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture(scope="session")
def app_server(django_db_setup, django_db_blocker, session_llm_server, tmp_path_factory) -> Iterator[AppServer]:
    """Daphne serving the app on a free port, its model answered by the scripted server."""
    log = tmp_path_factory.mktemp("daphne") / "daphne.log"
    process, url = start_daphne(app_env(session_llm_server.url), log)
    try:
        yield AppServer(url, session_llm_server, log)
    finally:
        stop_process(process)


@pytest.fixture(scope="module")
def offline_server(app_server, tmp_path_factory) -> Iterator[AppServer]:
    """Daphne with no language model, as on a fresh machine: the offline badge and banner are on the pages,
    and a chat is answered by the offline reply."""
    log = tmp_path_factory.mktemp("daphne-offline") / "daphne.log"
    process, url = start_daphne(app_env(None), log)
    try:
        yield AppServer(url, app_server.llm, log)
    finally:
        stop_process(process)


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, session_llm_server, tmp_path_factory) -> Iterator[subprocess.Popen]:
    """A real Celery worker (not eager mode) on the suite's Redis and test database."""
    from memoryapp.celery import app

    app.control.purge()  # tasks queued by earlier tests for rows that no longer exist
    log = tmp_path_factory.mktemp("celery") / "worker.log"
    global running_worker
    name = f"test-{os.getpid()}@%h"
    process = start_worker(app_env(session_llm_server.url), log, name)
    running_worker = name
    try:
        yield process
    finally:
        running_worker = None
        stop_process(process)
