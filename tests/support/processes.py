"""App processes as `./run` starts them: Daphne (HTTP + websockets) and a Celery worker, on a free
port, each with its own environment and log. Used by the test fixtures (servers.py) and bench/load.py,
so it imports neither pytest nor the test database.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait(check, process: subprocess.Popen, log: Path, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited: {log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start in {timeout} s: {log.read_text()[-3000:]}")
        time.sleep(0.2)


def stop_process(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def start_daphne(env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    """Daphne serving the app on a free port with `env`; returns the process and its base URL."""
    (process,), url = start_web(env, log, 1)
    return process, url


def start_web(env: dict[str, str], log: Path, processes: int) -> tuple[list[subprocess.Popen], str]:
    """`processes` Daphne processes sharing one port, as `./run` starts them (memoryapp/stack/processes.py);
    returns them and the base URL once the app answers."""
    from memoryapp.stack.processes import listening_socket, wait_until_serving, web_children

    sock = listening_socket("127.0.0.1", 0)  # the kernel's free port, held from here on
    port = sock.getsockname()[1]
    started = []
    with open(log, "w") as out:
        for child in web_children(sock, processes):
            started.append(
                subprocess.Popen(
                    child.argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, pass_fds=child.pass_fds
                )
            )
    sock.close()
    if not wait_until_serving("127.0.0.1", port, 90, alive=lambda: all(p.poll() is None for p in started)):
        for process in started:
            stop_process(process)
        raise RuntimeError(f"the web processes did not start: {log.read_text()[-3000:]}")
    return started, f"http://127.0.0.1:{port}"


def start_worker(
    env: dict[str, str], log: Path, name: str, *, wait: bool = True, queues: str = "celery,graph"
) -> subprocess.Popen:
    """A solo-pool Celery worker on `queues` (default both of the app's) with `env`; waits until it
    answers a ping by `name`."""
    from celery import Celery

    with open(log, "w") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "memoryapp",
                "worker",
                "--pool",
                "solo",
                "-l",
                "INFO",
                "-Q",
                queues,
                "-n",
                name,
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if not wait:
        return process
    client = Celery(broker=env["REDIS_URL"], set_as_current=False)  # the test process keeps the app's
    try:
        _wait(lambda: bool(client.control.ping(destination=[_node(name)], timeout=0.5)), process, log, "celery worker")
    except BaseException:
        stop_process(process)
        raise
    finally:
        client.close()
    return process


def _node(name: str) -> str:
    return name.replace("%h", socket.gethostname())


def wait_until_idle(
    redis_url: str, name: str, queues: tuple[str, ...] = ("celery", "graph"), timeout: float = 60
) -> bool:
    """Wait until the worker `name` has nothing left to do: its queues empty, nothing delivered and
    unacknowledged, and it answers a ping (a solo pool answers only between tasks). False on timeout."""
    import redis
    from celery import Celery

    broker = redis.Redis.from_url(redis_url)
    client = Celery(broker=redis_url, set_as_current=False)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            waiting = sum(broker.llen(queue) for queue in queues) + broker.hlen("unacked")
            if not waiting and client.control.ping(destination=[_node(name)], timeout=0.5):
                return True
            time.sleep(0.2)
        return False
    finally:
        client.close()
        broker.close()
