"""What /mcp refuses before any token is looked at: a host outside ALLOWED_HOSTS, and plain HTTP where
the site is HTTPS only; and that every other path still goes to Django."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.test import override_settings

from memoryapp.mcp_server.http import mcp_app, with_mcp

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


def call(app, path: str = "/mcp", *, host: str = "localhost", scheme: str = "http", headers=()) -> tuple[int, dict]:
    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "scheme": scheme,
        "query_string": b"",
        "headers": [(b"host", host.encode()), *headers],
    }
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body) if body else {}


@override_settings(ALLOWED_HOSTS=["memory.example.com"])
def test_a_host_outside_allowed_hosts_is_refused():
    assert call(mcp_app, host="evil.example")[0] == 400
    assert call(mcp_app, host="memory.example.com")[0] == 401  # then the token decides


@override_settings(SECURE_SSL_REDIRECT=True, SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"))
def test_plain_http_is_refused_where_the_site_is_https_only():
    status, body = call(mcp_app)
    assert status == 403 and "https" in body["detail"]
    assert call(mcp_app, scheme="https")[0] == 401
    assert call(mcp_app, headers=[(b"x-forwarded-proto", b"https")])[0] == 401


def test_only_the_mcp_path_leaves_django():
    seen = []

    async def django_app(scope, receive, send):
        seen.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    app = with_mcp(django_app)
    assert call(app, "/mcp")[0] == 401 and call(app, "/mcp/")[0] == 401
    for path in ("/mcpx", "/api/memories", "/settings/mcp"):
        assert call(app, path)[0] == 204
    assert seen == ["/mcpx", "/api/memories", "/settings/mcp"]
