"""MCP writes are the API's writes: they count against the same per-user limit as the REST routes, and
the user's open memories page shows them as they happen."""

from __future__ import annotations

import pytest
import websockets.sync.client as ws_client
from django.core.cache import cache
from django.test import Client, override_settings

from memoryapp.api.auth import create_token
from tests.support.servers import app_env, start_daphne, stop_process

from .client import data, error, session

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

LIMIT = 3


@pytest.fixture
def limited_server(django_db_setup, session_llm_server, tmp_path):
    """A Daphne of its own whose write limit is low enough to reach (the shared one's is lifted)."""
    process, url = start_daphne(
        {**app_env(session_llm_server.url), "API_WRITES_PER_MINUTE": str(LIMIT)}, tmp_path / "daphne.log"
    )
    cache.clear()
    try:
        yield url
    finally:
        stop_process(process)
        cache.clear()


@override_settings(API_WRITES_PER_MINUTE=LIMIT)
def test_mcp_and_rest_writes_share_one_limit(limited_server, alice):
    token = create_token(alice, "claude")[1]
    rest = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    first = rest.post("/api/memories", {"content": "I like green tea"}, content_type="application/json")
    assert first.status_code == 201

    async def work(client):
        return (
            data(await client.call_tool("add_memory", {"content": "I like oolong"})),
            data(await client.call_tool("add_memory", {"content": "I like jasmine"})),
            error(await client.call_tool("add_memory", {"content": "one too many"})),
            data(await client.call_tool("search_memories", {"query": "tea"})),
        )  # reads are not limited

    second, third, refused, found = session(limited_server, token, work)
    assert second["action"] == third["action"] == "created"
    assert refused.endswith(f"too many changes: at most {LIMIT} per minute; try again in a minute")
    assert found["items"]
    assert rest.post("/api/memories", {"content": "and REST"}, content_type="application/json").status_code == 429


def test_an_mcp_write_appears_on_the_open_memories_page(app_server, alice):
    token = create_token(alice, "claude")[1]
    browser = Client()
    browser.force_login(alice)
    headers = {"Origin": app_server.url, "Cookie": f"sessionid={browser.cookies['sessionid'].value}"}
    with ws_client.connect(
        app_server.url.replace("http", "ws") + "/ws/memories/", additional_headers=headers, open_timeout=10
    ) as page:
        page.ping().wait(5)

        async def work(client):
            return data(await client.call_tool("add_memory", {"content": "Remember: the zebra plan is on"}))

        session(app_server.url, token, work)
        frame = page.recv(timeout=10)
    assert "the zebra plan is on" in frame and 'hx-swap-oob="afterbegin:#memory-list"' in frame
