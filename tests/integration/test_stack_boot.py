"""The whole stack, booted the way a newcomer boots it: `manage.py up` on fresh embedded servers."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil
import pytest
import websockets.sync.client as ws_client
from celery import Celery

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def fresh_stack():
    """`manage.py up` on a new var dir with no DATABASE_URL/REDIS_URL: everything embedded."""
    var_dir = Path(tempfile.mkdtemp(prefix="ma-", dir="/tmp"))  # short: the Postgres socket lives here
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "FALKORDB_URL")}
    env.update(MEMORYAPP_VAR_DIR=str(var_dir), EMBEDDED_REDIS_PORT="0", PYTHONUNBUFFERED="1", WEB_PROCESSES="2")
    log = open(var_dir / "up.log", "w+")
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while "is running at" not in (var_dir / "up.log").read_text():
            assert proc.poll() is None, (var_dir / "up.log").read_text()
            assert time.monotonic() < deadline, "the stack did not come up in 120 s"
            time.sleep(0.3)
        yield proc, port, var_dir
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(var_dir, ignore_errors=True)


def test_it_boots_logs_in_over_http_and_opens_a_websocket(fresh_stack):
    proc, port, var_dir = fresh_stack
    output = (var_dir / "up.log").read_text()
    login = re.search(r"demo login: (\S+) / (\S+)", output)
    assert login, output
    username, password = login.groups()
    base = f"http://127.0.0.1:{port}"

    with httpx.Client(base_url=base, follow_redirects=False, timeout=10) as http:
        assert http.get("/").status_code == 302  # the chat needs a login
        page = http.get("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        answer = http.post(
            "/accounts/login/", data={"username": username, "password": password, "csrfmiddlewaretoken": token}
        )
        assert answer.status_code == 302 and answer.headers["location"] == "/"
        home = http.get("/")
        assert home.status_code == 200 and username in home.text
        # The demo account is the install's first, so its administrator; sign-up is closed after it.
        assert http.get("/admin/").status_code == 200
        http.post("/accounts/logout/", data={"csrfmiddlewaretoken": http.cookies["csrftoken"]})
        assert 'id="signup-closed"' in http.get("/accounts/signup/").text
        answer = http.post(
            "/accounts/login/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": http.cookies["csrftoken"]},
        )
        assert answer.status_code == 302
        session = http.cookies["sessionid"]

    headers = {"Cookie": f"sessionid={session}", "Origin": base}
    with ws_client.connect(f"ws://127.0.0.1:{port}/ws/memories/", additional_headers=headers, open_timeout=10) as ws:
        ws.ping().wait(5)  # accepted: the consumer authenticated the session

    # The Celery worker started by `up` answers through the embedded Redis.
    redis_url = f"redis://127.0.0.1:{(var_dir / 'redis' / 'port').read_text().strip()}/0"
    client = Celery(broker=redis_url, backend=redis_url)
    assert client.send_task("tasks.ping").get(timeout=30) == "pong"


def test_it_stops_every_child_and_the_embedded_servers_on_ctrl_c(fresh_stack):
    proc, port, var_dir = fresh_stack
    children = psutil.Process(proc.pid).children(recursive=True)
    assert len(children) >= 4  # two web processes, worker, beat
    webs = [c for c in children if "daphne" in " ".join(c.cmdline())]
    assert len(webs) == 2  # WEB_PROCESSES: both accept on the one port
    for web in webs:
        assert [c for c in web.net_connections("tcp") if c.status == psutil.CONN_LISTEN and c.laddr.port == port]
    redis_pid = int((var_dir / "redis" / "redis.pid").read_text())
    proc.send_signal(signal.SIGINT)
    assert proc.wait(60) == 0
    time.sleep(0.5)
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert not psutil.pid_exists(redis_pid) or psutil.Process(redis_pid).status() == psutil.STATUS_ZOMBIE
    assert not (var_dir / "pgdata" / "postmaster.pid").exists()
    assert "stopped" in (var_dir / "up.log").read_text()
