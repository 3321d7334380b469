"""The SDK's own client against the running server, as an MCP host would connect: streamable HTTP with
the user's Bearer token."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

T = TypeVar("T")


def connect(url: str, token: str) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(f"{url}/mcp", http_client=http))


def session(url: str, token: str, work: Callable[[Client], Awaitable[T]]) -> T:
    """Run `work(client)` in one MCP session (the tests are sync: their data is set up with the ORM)."""

    async def main() -> T:
        async with connect(url, token) as client:
            return await work(client)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    # A loop already runs on this thread (Playwright's sync API leaves one): run ours beside it.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


def data(result) -> Any:
    """A tool's answer as JSON; fails with the server's message when the call was an error."""
    text = result.content[0].text
    assert not result.is_error, text
    return json.loads(text)


def error(result) -> str:
    """A tool's error message; fails if the call succeeded."""
    assert result.is_error, result.content
    return result.content[0].text
