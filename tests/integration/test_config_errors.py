"""A newcomer's misconfiguration prints one clear line and exits non-zero, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("url", ["mysql://root@localhost/db", "not a url at all"])
def test_it_rejects_a_database_url_that_is_not_postgres(url):
    result = _manage("migrate", DATABASE_URL=url)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "DATABASE_URL" in lines[0], result.stderr


def test_it_names_database_url_when_its_server_cannot_be_reached():
    result = _manage("migrate", DATABASE_URL="postgres://nobody@127.0.0.1:1/nothing")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "DATABASE_URL" in lines[0], result.stderr


def test_it_rejects_a_boolean_it_would_have_to_guess():
    result = _manage("check", DEBUG="yes")
    assert result.returncode != 0
    assert "DEBUG must be 'True' or 'False'" in result.stderr and "Traceback" not in result.stderr


def test_it_names_an_unknown_graph_backend():
    result = _manage("check", GRAPH_BACKEND="neo4j")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "memoryapp.E010" in result.stderr
    assert "GRAPH_BACKEND must be one of graphiti, zep, off, not 'neo4j'" in result.stderr


def test_it_names_the_sign_up_modes_when_signup_is_misspelt():
    result = _manage("check", SIGNUP="yes")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "SIGNUP must be one of closed, open, approval, not 'yes'" in result.stderr


def test_it_names_a_learned_weights_folder_that_is_not_there(tmp_path):
    result = _manage("check", LEARNED_WEIGHTS_DIR=str(tmp_path / "retrained"))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "LEARNED_WEIGHTS_DIR must be a folder of trained weights" in result.stderr


@pytest.mark.parametrize("url", ["memory.example.com", "https://memory.example.com/app", "ftp://memory.example.com"])
def test_it_wants_public_url_to_be_an_origin(url):
    result = _manage("check", PUBLIC_URL=url)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "PUBLIC_URL must be the app's origin, such as https://memory.example.com (no path)" in result.stderr


def test_it_takes_public_url_with_a_trailing_slash():
    result = _manage("check", PUBLIC_URL="https://memory.example.com/")
    assert result.returncode == 0, result.stderr
