"""schemathesis runs every one of its checks over the live OpenAPI schema (Daphne on the test database):
no input may cause a server error, and every answer must be what the schema says: its status documented,
its content type and body the documented ones, its headers too; invalid input refused, valid input
accepted, and (two users, so schemathesis can try each one's ids as the other) no user reads another's.
Its stateful phase chains the routes through the links it infers from the schema (the id one route
returns is another's path parameter: create, then read, edit, delete).
The few exceptions, each with its reason, are in schemathesis.toml beside this file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from memoryapp.api.auth import create_token
from memoryapp.engine.memories.write import add_memory
from tests.support.llm_server import ScriptedLLMServer
from tests.support.servers import AppServer, app_env, start_daphne, stop_process

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

CONFIG = Path(__file__).with_name("schemathesis.toml")
SEED = 7
# The coverage phase runs whole; fuzzing (15 examples a route a round, schemathesis.toml) and the stateful
# phase repeat until the budget is spent: about 1,250 cases on 2 cores. The seed fixes what is generated,
# the budget how far it gets.
MAX_SECONDS = 80
MIN_CASES = 300


@pytest.fixture
def own_app_server(django_db_blocker, tmp_path) -> Iterator[AppServer]:
    """A Daphne and a scripted model of the fuzz's own: a request it gave up on (a chat turn that waits on
    the model) can go on queueing behind it for a while, and must not hold up, or take the scripted
    answers of, the tests that run after it on the suite's shared server."""
    with ScriptedLLMServer() as llm:
        log = tmp_path / "daphne.log"
        process, url = start_daphne(app_env(llm.url), log)
        try:
            yield AppServer(url, llm, log)
        finally:
            stop_process(process)


def _identities(tmp_path: Path) -> Path:
    """A Web Fuzzing Commons auth file: two users with their Bearer tokens."""
    users = []
    for name in ("fuzzer", "other"):
        user = get_user_model().objects.create_user(name, password="x-long-password-1")
        for text in ("Likes green tea", "Works in Lisbon"):
            add_memory(user, f"{text} ({name})")  # ids for the path parameters to hit
        secret = create_token(user, "schemathesis")[1]
        users.append({"name": name, "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {secret}"}]})
    path = tmp_path / "identities.json"
    path.write_text(json.dumps({"auth": users}))
    return path


def test_it_answers_every_generated_request_as_its_schema_says(own_app_server, tmp_path):
    identities = _identities(tmp_path)
    st = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"
    started = time.monotonic()
    result = subprocess.run(
        [
            st,
            "--config-file",
            str(CONFIG),
            "run",
            f"{own_app_server.url}/api/openapi.json",
            "--url",
            own_app_server.url,
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--max-time",
            str(MAX_SECONDS),
            "--seed",
            str(SEED),
            "--continue-on-failure",
            # One worker: with two, hypothesis parses lambdas' source in both threads at once and CPython
            # 3.11 can fail with "AST constructor recursion depth mismatch" (a runtime error, not ours).
            "--workers",
            "1",
            "--request-timeout",
            "20",
            "--no-color",
        ],
        capture_output=True,
        text=True,
        timeout=400,
        cwd=tmp_path,
        env={**os.environ, "MEMORYAPP_FUZZ_IDENTITIES": str(identities)},
    )
    output = result.stdout + result.stderr
    (tmp_path / "schemathesis.txt").write_text(output)
    print(f"schemathesis: {time.monotonic() - started:.0f} s\n" + output[-3000:])
    assert result.returncode == 0, output[-12000:]
    generated = re.search(r"(\d+) generated", output)
    assert generated and int(generated[1]) >= MIN_CASES, output[-3000:]
