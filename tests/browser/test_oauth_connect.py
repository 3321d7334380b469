"""A remote MCP client connects from nothing, as Claude.ai or ChatGPT would: the official SDK's OAuth
client discovers the authorization server from /mcp's 401, registers, sends its user to the consent page
(here a real Chromium, signed in as alice), gets a token, calls a tool, and later refreshes. The consent
page in English and Chinese."""

from __future__ import annotations

import asyncio
import queue
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from playwright.sync_api import Page, Route, expect

from memoryapp.models import Memory
from tests.integration.mcp.client import data, error
from tests.integration.oauth.flow import App
from tests.support.browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CALLBACK = "http://127.0.0.1:8765/callback"


class Storage:
    """What a client keeps between runs: its registration and its tokens."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class BrowserConsent:
    """The SDK runs in a thread of its own; Playwright's sync API only on the test's thread. The SDK's
    handlers hand the authorization URL over and wait for what the browser brought back to the callback."""

    def __init__(self) -> None:
        self.urls: queue.Queue[str] = queue.Queue()
        self.results: queue.Queue[AuthorizationCodeResult] = queue.Queue()

    async def redirect_handler(self, url: str) -> None:
        self.urls.put(url)

    async def callback_handler(self) -> AuthorizationCodeResult:
        return await asyncio.to_thread(self.results.get, timeout=60)

    def answer(self, page: Page, *, allow: bool = True, write: bool = True, shot=None) -> str:
        """Open the URL the SDK asked for, answer the consent page, catch the redirect to the client's
        loopback callback (nothing listens there: the route answers it) and hand code, state and iss back."""
        url = self.urls.get(timeout=60)
        caught: list[str] = []

        def callback(route: Route) -> None:
            caught.append(route.request.url)
            route.fulfill(status=200, content_type="text/plain", body="You can close this tab.")

        page.route(f"{CALLBACK}**", callback)
        page.goto(url)
        expect(page.locator("#consent")).to_be_visible()
        if shot:
            page.screenshot(path=shot, full_page=True)
        if not write:
            page.locator("input[name=write]").uncheck()
        page.locator("#allow" if allow else "#deny").click()
        expect(page.get_by_text("You can close this tab.")).to_be_visible()
        page.unroute(f"{CALLBACK}**")
        sent = {k: v[0] for k, v in parse_qs(urlsplit(caught[-1]).query).items()}
        self.results.put(
            AuthorizationCodeResult(code=sent.get("code", ""), state=sent.get("state"), iss=sent.get("iss"))
        )
        return caught[-1]


def connect(server: str, storage: Storage, consent: BrowserConsent) -> tuple[Client, OAuthClientProvider]:
    provider = OAuthClientProvider(
        server_url=f"{server}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="SDK Assistant",
            redirect_uris=[CALLBACK],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=consent.redirect_handler,
        callback_handler=consent.callback_handler,
    )
    http = create_mcp_http_client(auth=provider)
    return Client(streamable_http_client(f"{server}/mcp", http_client=http)), provider


def test_the_sdk_client_signs_in_through_the_consent_page_and_refreshes(page: Page, app_server, alice, shots):
    log_in(page, app_server.url, "en", "/")
    Memory.objects.create(user=alice, content="My sister lives in Lisbon")
    storage, consent = Storage(), BrowserConsent()

    async def first_run():
        client, provider = connect(app_server.url, storage, consent)
        async with client:
            found = data(await client.call_tool("search_memories", {"query": "Lisbon"}))
            added = data(await client.call_tool("add_memory", {"content": "I am learning Portuguese"}))
            first_token = storage.tokens.access_token
            # An hour later: the client knows its access token has expired and refreshes it.
            provider.context.token_expiry_time = time.time() - 1
            again = data(await client.call_tool("search_memories", {"query": "Portuguese"}))
        return found, added, again, first_token

    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(asyncio.run, first_run())
        redirect = consent.answer(page, shot=shots / "oauth-consent-en.png")
        found, added, again, first_token = running.result(timeout=120)

    assert redirect.startswith(CALLBACK + "?code=")
    assert [hit["memory"]["content"] for hit in found["items"]] == ["My sister lives in Lisbon"]
    assert added["action"] == "created" and Memory.objects.get(pk=added["memory"]["id"]).user == alice
    assert [hit["memory"]["content"] for hit in again["items"]] == ["I am learning Portuguese"]
    assert storage.tokens.access_token != first_token  # refreshed, and rotated
    assert storage.client_info.client_name == "SDK Assistant"
    stale = httpx.post(
        f"{app_server.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": f"Bearer {first_token}", "Accept": "application/json, text/event-stream"},
        timeout=10,
    )
    assert stale.status_code == 401  # the token it replaced no longer works


def test_a_read_only_connection_made_in_the_browser_cannot_write(page: Page, app_server, alice):
    log_in(page, app_server.url, "en", "/")
    storage, consent = Storage(), BrowserConsent()

    async def run():
        client, _ = connect(app_server.url, storage, consent)
        async with client:
            listed = data(await client.call_tool("list_memories", {}))
            refused = error(await client.call_tool("add_memory", {"content": "I like jazz"}))
        return listed, refused

    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(asyncio.run, run())
        consent.answer(page, write=False)
        listed, refused = running.result(timeout=120)

    assert listed["items"] == [] and storage.tokens.scope == "memories:read"
    assert "this connection may only read memories" in refused
    assert not Memory.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    ("language", "title", "read", "write", "allow", "deny", "back"),
    [
        (
            "en",
            "Connect Claude <Work> to your memory?",
            "Search and read your memories",
            "Add, change and delete your memories",
            "Allow",
            "Deny",
            "After you answer, you go back to claude.ai.",
        ),
        (
            "zh-hans",
            "将 Claude <Work> 连接到你的记忆？",
            "搜索和查看你的记忆",
            "添加、修改和删除你的记忆",
            "允许",
            "拒绝",
            "回答后，你将回到 claude.ai。",
        ),
    ],
)
def test_the_consent_page_says_who_asks_for_what_in_the_users_language(
    page: Page, app_server, alice, shots, language, title, read, write, allow, deny, back
):
    app = App.registered(
        app_server.url, client_name="Claude <Work>", redirect_uris=["https://claude.ai/api/mcp/auth_callback"]
    )
    params = app.authorize_params()
    log_in(page, app_server.url, language, "/")
    page.goto(f"{app_server.url}/authorize?" + httpx.QueryParams(params).__str__())

    expect(page.locator("h1")).to_have_text(title)
    expect(page.locator(".client-name")).to_have_attribute("translate", "no")
    expect(page.locator("[data-scope='memories:read']")).to_have_text(read)
    expect(page.locator("[data-scope='memories:write']")).to_have_text(write)
    expect(page.locator("[data-scope='memories:write'] input")).to_be_checked()
    expect(page.locator("#allow")).to_have_text(allow)
    expect(page.locator("#deny")).to_have_text(deny)
    expect(page.locator(".consent .help")).to_have_text(back)
    for name in ("client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "resource", "scope"):
        assert page.locator(f"input[type=hidden][name={name}]").get_attribute("value") == params[name], name
    page.screenshot(path=shots / f"oauth-consent-{language}.png", full_page=True)
