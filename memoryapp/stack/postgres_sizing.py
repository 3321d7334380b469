"""The embedded Postgres' memory settings, sized to the machine it runs on.

Postgres ships sized for a tiny machine (shared_buffers 128 MB): at a million memories the HNSW index
alone is 3 GB, so most of a large user's recall read pages from the OS instead of Postgres' own cache
(docs/benchmarks/speed.md, "Issue #47"). The rules are the usual ones (pgtune's "web"
profile): a share of memory for shared_buffers, the rest of the page cache as effective_cache_size, a
sixteenth for maintenance (index builds), and work_mem from what is left over the connections.

They are written to `memoryapp.conf` in the data directory, which postgresql.conf includes; an operator's
`ALTER SYSTEM SET ...` (postgresql.auto.conf, read after it) still wins, setting by setting.
"""

from __future__ import annotations

import os
from pathlib import Path

import psutil

INCLUDE_NAME = "memoryapp.conf"
_INCLUDE_LINE = f"include_if_exists = '{INCLUDE_NAME}'"
_MB = 1024 * 1024
# Each process (every web process, the worker, beat) pools up to DB_POOL_SIZE (20) connections: with
# ./run's up to four web processes that is more than Postgres' own 100.
_CONNECTIONS = 200
_CGROUP_LIMIT = Path("/sys/fs/cgroup/memory.max")


def machine_memory() -> int:
    """Bytes of memory this process may use: the machine's, or its container's limit when lower."""
    total = psutil.virtual_memory().total
    try:
        limit = _CGROUP_LIMIT.read_text().strip()
    except OSError:
        return total
    return min(total, int(limit)) if limit.isdigit() else total


def _clamp(value: float, low: int, high: int) -> int:
    return int(max(low, min(high, value)))


def sized_settings(memory_bytes: int, share: float) -> dict[str, str]:
    """Postgres' memory settings for a machine with `memory_bytes`, giving `share` of it to shared_buffers."""
    memory_mb = memory_bytes // _MB
    shared = max(128, int(memory_mb * share))
    cache = max(shared, int(memory_mb * min(0.75, 3 * share)))
    maintenance = _clamp(memory_mb / 16, 64, 2048)
    work = _clamp((memory_mb - shared) / (_CONNECTIONS * 4), 4, 64)
    return {
        "max_connections": str(_CONNECTIONS),
        "shared_buffers": f"{shared}MB",
        "effective_cache_size": f"{cache}MB",
        "maintenance_work_mem": f"{maintenance}MB",
        "work_mem": f"{work}MB",
    }


def write_sizing(pgdata: Path, values: dict[str, str]) -> bool:
    """Write `values` as the data directory's include (none: remove it) and make postgresql.conf include
    it; True when the file changed, so a running server would need a restart to take it."""
    conf = pgdata / "postgresql.conf"
    text = conf.read_text()
    if _INCLUDE_LINE not in text:
        conf.write_text(
            f"{text.rstrip()}\n\n# memory settings sized to the machine (memoryapp/stack)\n{_INCLUDE_LINE}\n"
        )
    include = pgdata / INCLUDE_NAME
    body = "".join(f"{name} = '{value}'\n" for name, value in values.items())
    if body:
        body = f"# written by memoryapp at each start (POSTGRES_MEMORY_SHARE); ALTER SYSTEM overrides\n{body}"
    before = include.read_text() if include.exists() else ""
    if body == before:
        return False
    if body:
        include.write_text(body)
        _give_to_owner(include, pgdata)
    else:
        include.unlink(missing_ok=True)
    return True


def _give_to_owner(path: Path, pgdata: Path) -> None:
    """The server runs as the data directory's owner (the wheel's own OS user when we are root)."""
    owner = pgdata.stat()
    if path.stat().st_uid != owner.st_uid:
        os.chown(path, owner.st_uid, owner.st_gid)
