"""The embedded Postgres runs with memory settings sized to the machine from its first start, an operator's
ALTER SYSTEM wins over them, and POSTGRES_MEMORY_SHARE=0 gives Postgres' own back."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
import pytest

from memoryapp.stack.postgres import postgres_url
from memoryapp.stack.postgres_sizing import machine_memory, sized_settings

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


@pytest.fixture
def fresh_var():
    var_dir = Path(tempfile.mkdtemp(prefix="ma-", dir="/tmp"))  # short: the Postgres socket lives here
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "FALKORDB_URL")}
    env.update(MEMORYAPP_VAR_DIR=str(var_dir), EMBEDDED_REDIS_PORT="0")
    yield var_dir, env
    _stack("stop", env=env)
    shutil.rmtree(var_dir, ignore_errors=True)


def _stack(action: str, *, env: dict[str, str], **extra: str) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "stack", action],
        cwd=ROOT,
        env={**env, **extra},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def _show(var_dir: Path, *names: str) -> dict[str, str]:
    with psycopg.connect(postgres_url(var_dir), autocommit=True) as conn:
        return {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in names}


def _in_mb(value: str) -> int:
    number, unit = int(value[:-2]), value[-2:]
    return number * {"kB": 1, "MB": 1024, "GB": 1024 * 1024}[unit] // 1024


def test_the_first_start_is_sized_to_the_machine_and_the_operator_has_the_last_word(fresh_var):
    var_dir, env = fresh_var
    _stack("start", env=env, POSTGRES_MEMORY_SHARE="0.1")
    wanted = sized_settings(machine_memory(), 0.1)
    shown = _show(var_dir, *wanted)
    assert shown.pop("max_connections") == wanted.pop("max_connections") == "200"
    assert {name: _in_mb(value) for name, value in shown.items()} == {
        name: int(value.removesuffix("MB")) for name, value in wanted.items()
    }
    assert _in_mb(shown["shared_buffers"]) > 128  # more than Postgres ships with, on any machine this runs on

    with psycopg.connect(postgres_url(var_dir), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET shared_buffers = '160MB'")
    _stack("stop", env=env)
    _stack("start", env=env, POSTGRES_MEMORY_SHARE="0.1")
    assert _show(var_dir, "shared_buffers", "work_mem") == {
        "shared_buffers": "160MB",
        "work_mem": wanted["work_mem"],
    }

    with psycopg.connect(postgres_url(var_dir), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM RESET shared_buffers")
    _stack("stop", env=env)
    _stack("start", env=env, POSTGRES_MEMORY_SHARE="0")
    assert _show(var_dir, "shared_buffers", "work_mem") == {"shared_buffers": "128MB", "work_mem": "4MB"}
