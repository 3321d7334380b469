"""Django for the benchmarks: its own embedded Postgres under var/bench, migrated, fresh users."""

from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH_VAR_DIR = REPO / "var" / "bench"
# LoCoMo is read in place from ../shared beside the clone; it is never copied into the repository.
LOCOMO_DATA = REPO.parent / "shared" / "bench" / "locomo" / "locomo_dev.json"
STARTED = datetime.now(UTC)
LOADAVG_AT_START = [round(x, 2) for x in os.getloadavg()]


def bench_var_dir() -> Path:
    """Where the bench's embedded servers keep their data: var/bench for the default embedder's dimension,
    var/bench-<dim>d for another. The vector column's dimension is fixed when the database is migrated
    (settings.EMBEDDING_DIM in the migrations), so each dimension needs a database of its own."""
    from memoryapp.providers.embeddings.catalog import DEFAULT_MODEL, default_dimension

    dim = os.environ.get("EMBEDDING_DIM") or str(default_dimension(os.environ.get("EMBEDDING_MODEL") or DEFAULT_MODEL))
    if not dim.isdigit() or int(dim) == default_dimension(DEFAULT_MODEL):
        return BENCH_VAR_DIR  # a malformed EMBEDDING_DIM is the settings' error to name
    return BENCH_VAR_DIR.with_name(f"bench-{int(dim)}d")


def setup_django() -> None:
    """Must run before anything imports memoryapp's models; starts the bench's embedded servers."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")
    os.environ.setdefault("MEMORYAPP_VAR_DIR", str(bench_var_dir()))
    # A free port for the bench's own Redis, so it never collides with a dev stack on 6479.
    os.environ.setdefault("EMBEDDED_REDIS_PORT", "0")
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import django
    from django.core.management import call_command

    django.setup()
    from memoryapp.stack.control import start_embedded

    start_embedded()
    call_command("migrate", verbosity=0)


def fresh_user(prefix: str):
    """A new user per run and sample, so repeated runs never see each other's memories."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(f"{prefix}-{uuid.uuid4().hex[:10]}")


def database_uri() -> str:
    """The bench database as a libpq URI (for peers that open their own connections)."""
    from django.conf import settings

    return settings.DATABASE_URL


# Paths the benchmarks themselves write: a run that changed only these still ran a clean tree.
OUTPUTS = ("bench/results", "docs/img", "docs/benchmarks.md", "docs/benchmarks/")


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def command_line(module: str, argv: list[str] | None = None) -> str:
    """The command as typed: `python -m bench.chat --json bench/results/chat.json`."""
    return shlex.join(["python", "-m", module, *(sys.argv[1:] if argv is None else argv)])


def provenance(module: str, argv: list[str] | None = None) -> dict:
    """What made a result: the code (commit, whether the tree had other changes), the command, the machine
    and how busy it was. Latencies scale with the load average: these machines are shared."""
    status = _git("status", "--porcelain", "--", ".", *(f":(exclude){path}" for path in OUTPUTS))
    return {
        "commit": _git("rev-parse", "HEAD"),
        "dirty": None if status is None else bool(status),
        "command": command_line(module, argv),
        "python": platform.python_version(),
        "python_hash_seed": os.environ.get("PYTHONHASHSEED"),
        "cpu_count": os.cpu_count() or 0,
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "started": STARTED.isoformat(timespec="seconds"),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "loadavg_at_start": LOADAVG_AT_START,
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
    }


def write_result(path: Path, result: dict, module: str, argv: list[str] | None = None) -> None:
    """Every benchmark's JSON result goes through here: the result with its `provenance` block, readable
    (indented, Chinese kept as is)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"provenance": provenance(module, argv), **result}
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(f"written to {path}")


def write_state(path: Path, state: dict) -> None:
    """A benchmark's own bookkeeping under var/ (what a reusable dataset holds), not a result: no provenance."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=1) + "\n")


def run_benchmark(module: str, argv, parse_args, run, print_summary, print_misses) -> None:
    """A bench command's main: parse, run, print, optionally list misses (--show-misses) and write --json."""
    import logging

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = parse_args(argv)
    result = run(args)
    print_summary(result)
    if args.show_misses:
        print_misses(result, args.show_misses)
    if args.json:
        write_result(args.json, result, module, argv)
