"""The embedded servers start where the user asks (`./run`, `manage.py stack start`, the suite), never as
a side effect of importing the settings; the embedded Postgres is sized to the machine; a command on a stopped stack says in one line what to run; the
database checks run on `up` and say what to do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from memoryapp.stack.postgres import postgres_url
from memoryapp.stack.postgres_sizing import machine_memory, sized_settings
from tests.support import servers

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


def _manage(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def fresh_var():
    """A new var dir and no external servers: everything embedded, nothing started yet."""
    var_dir = Path(tempfile.mkdtemp(prefix="ma-", dir="/tmp"))  # short: the Postgres socket lives here
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "FALKORDB_URL")}
    env.update(MEMORYAPP_VAR_DIR=str(var_dir), EMBEDDED_REDIS_PORT="0")
    yield var_dir, env
    _manage("stack", "stop", env=env)
    shutil.rmtree(var_dir, ignore_errors=True)


def _started_anything(var_dir: Path) -> bool:
    return (var_dir / "pgdata" / "postmaster.pid").exists() or (var_dir / "redis" / "redis.pid").exists()


def test_it_starts_nothing_for_commands_that_do_not_ask(fresh_var):
    var_dir, env = fresh_var
    assert _manage("check", env=env).returncode == 0
    stopped = _manage("stack", "stop", env=env)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    status = _manage("stack", "status", env=env)
    assert "postgres: embedded, stopped" in status.stdout and "redis: embedded, stopped" in status.stdout
    assert not _started_anything(var_dir)


def test_it_says_in_one_line_what_to_run_on_a_stopped_stack(fresh_var):
    var_dir, env = fresh_var
    result = _manage("migrate", env=env)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [
        "memoryapp: the embedded servers are not running: start them with ./run (or manage.py stack start)"
    ], result.stderr
    assert not _started_anything(var_dir)


def test_it_starts_and_stops_on_request(fresh_var):
    var_dir, env = fresh_var
    started = _manage("stack", "start", env=env)
    assert started.returncode == 0, started.stderr
    status = _manage("stack", "status", env=env)
    assert "postgres: embedded, running" in status.stdout and "redis: embedded, running" in status.stdout
    migrated = _manage("migrate", "--skip-checks", env=env)  # the same servers answer a later command
    assert migrated.returncode == 0, migrated.stderr
    assert _manage("stack", "stop", env=env).returncode == 0
    assert "postgres: embedded, stopped" in _manage("stack", "status", env=env).stdout
    assert not _started_anything(var_dir)


@pytest.mark.django_db
def test_it_refuses_to_run_on_embeddings_of_another_dimension_and_says_what_to_do():
    """`up` runs the database checks before it serves: vectors stored at one dimension, settings at another."""
    stored = settings.EMBEDDING_DIM
    env = {**os.environ, "DATABASE_URL": servers.test_database_url(), "EMBEDDING_DIM": str(stored + 128), "PORT": "0"}
    result = _manage("up", "--port", "1", env=env, timeout=60)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "memoryapp.E003" in output and f"{stored} dimensions" in output
    assert f"EMBEDDING_DIM={stored}" in output and "manage.py reembed" in output
    assert "is running at" not in output


def _stack(action: str, env: dict[str, str], **extra: str) -> None:
    done = _manage("stack", action, env={**env, **extra})
    assert done.returncode == 0, done.stderr


def _show(var_dir: Path, *names: str) -> dict[str, str]:
    with psycopg.connect(postgres_url(var_dir), autocommit=True) as conn:
        return {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in names}


def _in_mb(value: str) -> int:
    number, unit = int(value[:-2]), value[-2:]
    return number * {"kB": 1, "MB": 1024, "GB": 1024 * 1024}[unit] // 1024


def test_the_embedded_postgres_is_sized_to_the_machine_and_the_operator_has_the_last_word(fresh_var):
    """From the first start on; an operator's ALTER SYSTEM wins; POSTGRES_MEMORY_SHARE=0 gives Postgres' own."""
    var_dir, env = fresh_var
    _stack("start", env, POSTGRES_MEMORY_SHARE="0.1")
    wanted = sized_settings(machine_memory(), 0.1)
    shown = _show(var_dir, *wanted)
    assert shown.pop("max_connections") == wanted.pop("max_connections") == "200"
    assert {name: _in_mb(value) for name, value in shown.items()} == {
        name: int(value.removesuffix("MB")) for name, value in wanted.items()
    }
    assert _in_mb(shown["shared_buffers"]) > 128  # more than Postgres ships with, on any machine this runs on

    with psycopg.connect(postgres_url(var_dir), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET shared_buffers = '160MB'")
    _stack("stop", env)
    _stack("start", env, POSTGRES_MEMORY_SHARE="0.1")
    assert _show(var_dir, "shared_buffers", "work_mem") == {
        "shared_buffers": "160MB",
        "work_mem": wanted["work_mem"],
    }

    with psycopg.connect(postgres_url(var_dir), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM RESET shared_buffers")
    _stack("stop", env)
    _stack("start", env, POSTGRES_MEMORY_SHARE="0")
    assert _show(var_dir, "shared_buffers", "work_mem") == {"shared_buffers": "128MB", "work_mem": "4MB"}
