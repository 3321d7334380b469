from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.test import Client

from memoryapp.api.auth import create_token
from memoryapp.engine import jobs
from tests.support.processes import start_worker, stop_process
from tests.support.servers import app_env


@pytest.fixture
def alice_token(alice) -> str:
    return create_token(alice, "tests")[1]


@pytest.fixture
def api(client: Client, alice_token: str):
    """A client that calls the API as alice with her Bearer token (no session)."""

    class Api:
        def __getattr__(self, method: str):
            def call(path: str, json=None, **extra):
                kwargs = {"HTTP_AUTHORIZATION": f"Bearer {alice_token}", **extra}
                if json is not None:
                    kwargs.update(data=json, content_type="application/json")
                return getattr(client, method)(f"/api{path}", **kwargs)

            return call

    return Api()


NO_MODEL_QUEUE = "learn-without-a-model"  # the session's worker has the scripted model; this one has none


@pytest.fixture(scope="module")
def worker_without_a_model(django_db_setup, tmp_path_factory) -> Iterator[None]:
    """A real Celery worker with no language model, on a queue of its own (the embedded default)."""
    process = start_worker(
        app_env(None),
        tmp_path_factory.mktemp("celery") / "worker.log",
        f"no-model-{time.time_ns()}@%h",
        queues=NO_MODEL_QUEUE,
    )
    try:
        yield
    finally:
        stop_process(process)


@contextmanager
def sent_to_the_worker_without_a_model(kind: jobs.Job, task) -> Iterator[None]:
    """While inside, the engine's `kind` jobs go to that worker's queue; then to `task`'s own again."""

    class Runner:
        name = task.name

        def delay(self, *args):
            return task.apply_async(args, queue=NO_MODEL_QUEUE)

    jobs.register({kind: Runner()})
    try:
        yield
    finally:
        jobs.register({kind: task})
