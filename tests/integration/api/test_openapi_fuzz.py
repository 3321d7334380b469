"""schemathesis fuzzes every route of the live OpenAPI schema (Daphne on the test database)
with a Bearer token: no input may cause a server error. Bounded so it runs in about a minute.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from memoryapp.auth import create_token
from memoryapp.engine.write import add_memory

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_it_answers_no_5xx_to_generated_requests(app_server, tmp_path):
    user = get_user_model().objects.create_user("fuzzer", password="x-long-password-1")
    for text in ("Likes green tea", "Works in Lisbon"):
        add_memory(user, text)  # ids for the path parameters to hit
    secret = create_token(user, "schemathesis")[1]
    st = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"
    result = subprocess.run(
        [st, "run", f"{app_server.url}/api/openapi.json", "--url", app_server.url,
         "-H", f"Authorization: Bearer {secret}", "--checks", "not_a_server_error",
         "--phases", "examples,coverage,fuzzing", "--max-examples", "10", "--max-time", "60",
         "--seed", "7",
         # One worker: with two, hypothesis parses lambdas' source in both threads at once and CPython
         # 3.11 can fail with "AST constructor recursion depth mismatch" (a runtime error, not ours).
         "--workers", "1", "--request-timeout", "20", "--no-color"],
        capture_output=True, text=True, timeout=150, cwd=tmp_path,
    )
    (tmp_path / "schemathesis.txt").write_text(result.stdout + result.stderr)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]
