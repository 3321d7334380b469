"""Runs the app's processes (Daphne, a Celery worker, Celery beat) as children and stops them all.

Ctrl-C or SIGTERM stops every child (then kills any that linger), so nothing is orphaned. Several Daphne
processes share one listening socket, opened here and handed to each (`daphne --fd`, as Channels'
deployment guide runs them under a process manager): the kernel gives each connection to one of them, so
the web side uses more than the one core a Python process can.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen | None = field(default=None, repr=False)
    pass_fds: tuple[int, ...] = ()


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
            return True
        except OSError:
            return False


def wait_until_serving(host: str, port: int, timeout: float, alive) -> bool:
    """True once the app answers HTTP on the port. The socket listens before any web process is ready
    (it is opened here), so a connection alone would prove nothing."""
    deadline = time.monotonic() + timeout
    address = "127.0.0.1" if host == "0.0.0.0" else host
    while time.monotonic() < deadline:
        if not alive():
            return False
        connection = http.client.HTTPConnection(address, port, timeout=max(0.5, deadline - time.monotonic()))
        try:
            connection.request("GET", "/healthz")
            connection.getresponse()
            return True
        except OSError:
            time.sleep(0.1)
        finally:
            connection.close()
    return False


class Supervisor:
    def __init__(self, children: list[Child], env: dict[str, str]):
        self.children = children
        self.env = env
        self._stopping = False

    def start(self) -> None:
        for child in self.children:
            child.process = subprocess.Popen(child.argv, env=self.env, pass_fds=child.pass_fds)

    def first_exited(self) -> Child | None:
        for child in self.children:
            if child.process is not None and child.process.poll() is not None:
                return child
        return None

    def stop(self, grace: float = 15.0) -> None:
        if self._stopping:
            return
        self._stopping = True
        for child in self.children:
            if child.process and child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for child in self.children:
            if child.process is None:
                continue
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()

    def run_until_signal(self) -> int:
        """Block until Ctrl-C/SIGTERM (returns 0) or until a child dies (returns 1)."""
        received: list[int] = []

        def on_signal(signum, frame):
            received.append(signum)

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            while not received:
                dead = self.first_exited()
                if dead is not None:
                    print(
                        f"memoryapp: {dead.name} exited with code {dead.process.returncode}; stopping", file=sys.stderr
                    )
                    return 1
                time.sleep(0.2)
            return 0
        finally:
            self.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def listening_socket(host: str, port: int) -> socket.socket:
    """The web processes' shared socket, bound and listening, inheritable by the children."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


def web_children(sock: socket.socket, count: int) -> list[Child]:
    """`count` Daphne processes serving the app on `sock`."""
    fd = sock.fileno()
    return [
        Child(
            "web" if count == 1 else f"web-{n}",
            python_module("daphne", "--fd", str(fd), "memoryapp.asgi:application"),
            pass_fds=(fd,),
        )
        for n in range(1, count + 1)
    ]


def web_process_count(asked: int) -> int:
    """`asked` web processes, or with 0 one per core, at most four (each keeps its own database pool)."""
    return asked if asked > 0 else max(1, min(os.cpu_count() or 1, 4))


def python_module(*args: str) -> list[str]:
    return [sys.executable, "-m", *args]


def child_env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env
