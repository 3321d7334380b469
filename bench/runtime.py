"""Django for the benchmarks: its own embedded Postgres under var/bench, migrated, fresh users."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def setup_django() -> None:
    """Must run before anything imports memoryapp's models; starts the bench's embedded servers."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")
    os.environ.setdefault("MEMORYAPP_VAR_DIR", str(REPO / "var" / "bench"))
    # A free port for the bench's own Redis, so it never collides with a dev stack on 6479.
    os.environ.setdefault("EMBEDDED_REDIS_PORT", "0")
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import django
    from django.core.management import call_command

    django.setup()
    from memoryapp.embedded import start_embedded

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


def machine() -> dict[str, str | int]:
    import platform

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    # The load average is recorded because this machine is shared: latencies scale with it.
    return {"cpu": cpu, "cores": os.cpu_count() or 0, "python": platform.python_version(),
            "platform": platform.platform(), "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]}


def write_result(path: Path, result: dict) -> None:
    """A benchmark's JSON result, readable (indented, Chinese kept as is)."""
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"written to {path}")


def run_benchmark(argv, parse_args, run, print_summary, print_misses) -> None:
    """A bench command's main: parse, run, print, optionally list misses (--show-misses) and write --json."""
    import logging

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = parse_args(argv)
    result = run(args)
    print_summary(result)
    if args.show_misses:
        print_misses(result, args.show_misses)
    if args.json:
        write_result(args.json, result)
