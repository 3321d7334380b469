"""Real app processes for browser and pipeline tests: Daphne (HTTP + websockets) and a Celery worker,
run as subprocesses against the pytest-django test database and the suite's embedded Redis.

Tests that use them need committed data: mark them `django_db(transaction=True)`.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from .llm_server import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_database_url() -> str:
    """settings.DATABASE_URL with the database name pytest-django created."""
    parts = urlsplit(settings.DATABASE_URL)
    return urlunsplit(parts._replace(path="/" + settings.DATABASES["default"]["NAME"]))


def app_env(llm_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "PYTEST_")) and k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(DATABASE_URL=test_database_url(), REDIS_URL=settings.REDIS_URL,
               MEMORYAPP_VAR_DIR=str(settings.VAR_DIR), PYTHONUNBUFFERED="1", LLM_TIMEOUT_SECONDS="5",
               # The graph has its own suites; here its syncs would eat the answers scripted for chat.
               GRAPH_BACKEND="off",
               # The write limit has its own test; here it would turn the API fuzz into 429s.
               API_WRITES_PER_MINUTE="100000")
    if llm_url:
        env.update(OPENAI_BASE_URL=llm_url, OPENAI_API_KEY="test-key", LLM_MODEL="scripted-model")
    return env


def _wait(check, process: subprocess.Popen, log: Path, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited: {log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start in {timeout} s: {log.read_text()[-3000:]}")
        time.sleep(0.2)


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class AppServer:
    url: str
    llm: ScriptedLLMServer
    log: Path


@pytest.fixture(scope="session")
def session_llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


def start_daphne(env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    """Daphne serving the app on a free port with `env`; returns the process and its base URL."""
    port = free_port()
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "memoryapp.asgi:application"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )

    def listening() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return False

    try:
        _wait(listening, process, log, "daphne")
    except BaseException:
        _stop(process)
        raise
    return process, f"http://127.0.0.1:{port}"


def start_worker(env: dict[str, str], log: Path, name: str, *, wait: bool = True) -> subprocess.Popen:
    """A solo-pool Celery worker on both queues with `env`; waits until it answers a ping by `name`."""
    from celery import Celery

    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "memoryapp", "worker", "--pool", "solo", "-l", "INFO",
             "-Q", "celery,graph", "-n", name],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    if not wait:
        return process
    client = Celery(broker=env["REDIS_URL"], set_as_current=False)  # the test process keeps the app's
    try:
        _wait(lambda: bool(client.control.ping(destination=[_node(name)], timeout=0.5)), process, log,
              "celery worker")
    except BaseException:
        _stop(process)
        raise
    finally:
        client.close()
    return process


def _node(name: str) -> str:
    return name.replace("%h", socket.gethostname())


def stop_process(process: subprocess.Popen) -> None:
    _stop(process)


@pytest.fixture(scope="session")
def app_server(django_db_setup, django_db_blocker, session_llm_server, tmp_path_factory) -> Iterator[AppServer]:
    """Daphne serving the app on a free port, its model answered by the scripted server."""
    log = tmp_path_factory.mktemp("daphne") / "daphne.log"
    process, url = start_daphne(app_env(session_llm_server.url), log)
    try:
        yield AppServer(url, session_llm_server, log)
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, session_llm_server, tmp_path_factory) -> Iterator[subprocess.Popen]:
    """A real Celery worker (not eager mode) on the suite's Redis and test database."""
    from memoryapp.celery import app

    app.control.purge()  # tasks queued by earlier tests for rows that no longer exist
    log = tmp_path_factory.mktemp("celery") / "worker.log"
    process = start_worker(app_env(session_llm_server.url), log, f"test-{os.getpid()}@%h")
    try:
        yield process
    finally:
        _stop(process)
