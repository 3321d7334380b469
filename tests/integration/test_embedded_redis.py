from __future__ import annotations

import socket
import tempfile
from pathlib import Path

import pytest
import redis

from memoryapp.stack import StackError, redis_running, redis_url, start_redis, stop_redis


@pytest.fixture
def var_dir():
    return Path(tempfile.mkdtemp(prefix="ma-redis-", dir="/tmp"))


def test_it_fails_with_one_clear_line_when_its_port_is_taken(var_dir):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        url = redis_url(var_dir, port)
        with pytest.raises(StackError) as error:
            start_redis(var_dir, url)
    message = str(error.value)
    assert f"port {port}" in message and "EMBEDDED_REDIS_PORT" in message and "\n" not in message


def test_it_reuses_a_running_server_and_its_data_and_loads_falkordb(var_dir):
    url = redis_url(var_dir, 0)
    assert not redis_running(var_dir)  # naming the server starts nothing
    try:
        assert start_redis(var_dir, url) == url
        client = redis.Redis.from_url(url)
        client.set("kept", "yes")
        assert redis_url(var_dir, 0) == url and start_redis(var_dir, url) == url  # the running server is found
        assert client.execute_command("GRAPH.QUERY", "probe", "RETURN 1")  # FalkorDB is loaded
        stop_redis(var_dir)
        url_again = start_redis(var_dir, redis_url(var_dir, 0))  # restarted on the same folder: the data came back
        assert redis.Redis.from_url(url_again).get("kept") == b"yes"
    finally:
        stop_redis(var_dir)
