"""Fixtures for the outage suite: the app's processes on servers of their own, so that stopping, killing or
restarting those servers leaves the rest of the test session alone (tests/support/dedicated.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from subprocess import Popen

import pytest
import websockets.sync.client as ws_client
from celery import Celery
from django.conf import settings
from django.test import Client

from tests.support.dedicated import DedicatedRedis, wait_until
from tests.support.llm_server import ScriptedLLMServer
from tests.support.servers import app_env, start_daphne, start_worker, stop_process


@pytest.fixture
def own_redis(tmp_path) -> Iterator[DedicatedRedis]:
    server = DedicatedRedis(tmp_path / "redis").start()
    yield server
    server.stop()


@dataclass
class Stack:
    """Daphne and/or a Celery worker whose broker, channel layer and cache are one dedicated Redis."""

    env: dict[str, str]
    llm: ScriptedLLMServer
    folder: Path
    url: str = ""
    processes: dict[str, Popen] = field(default_factory=dict)

    def start_worker(self, name: str, wait: bool = True) -> Popen:
        node = f"{name}-{os.getpid()}-{time.monotonic_ns()}@localhost"
        self.processes[name] = start_worker(self.env, self.folder / f"{name}.log", node, wait=False)
        if wait:
            self.wait_for_worker(node)
        return self.processes[name]

    def wait_for_worker(self, node: str, timeout: float = 90) -> None:
        client = Celery(broker=self.env["REDIS_URL"], set_as_current=False)
        try:
            wait_until(lambda: client.control.ping(destination=[node], timeout=0.5), timeout, f"worker {node}")
        finally:
            client.close()

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text()

    def session_for(self, user) -> str:
        client = Client()
        client.force_login(user)
        return client.cookies["sessionid"].value

    def socket(self, path: str, session: str):
        return ws_client.connect(
            self.url.replace("http", "ws", 1) + path,
            open_timeout=15,
            additional_headers={"Cookie": f"sessionid={session}", "Origin": self.url},
        )

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                stop_process(process)


@pytest.fixture
def stack(own_redis, llm_server, tmp_path) -> Iterator[Stack]:
    """Not started: call `start_worker(name)` and/or `start_web()`."""
    # Embeddings from the scripted server too: the processes start in seconds instead of loading torch.
    llm_server.state.embedding_dim = settings.EMBEDDING_DIM  # vectors that fit the suite's database
    env = {
        **app_env(llm_server.url),
        "REDIS_URL": own_redis.url,
        "EMBEDDING_PROVIDER": "openai",
        "EMBEDDING_DIM": str(settings.EMBEDDING_DIM),
    }
    stack = Stack(env, llm_server, tmp_path)
    try:
        yield stack
    finally:
        stack.stop()


def start_web(stack: Stack) -> None:
    process, stack.url = start_daphne(stack.env, stack.folder / "daphne.log")
    stack.processes["daphne"] = process


def frames_until(socket, needle: str, timeout: float = 30) -> str:
    """Text frames joined until `needle` shows up."""
    seen, deadline = "", time.monotonic() + timeout
    while needle not in seen:
        seen += socket.recv(timeout=max(0.1, deadline - time.monotonic()))
    return seen
