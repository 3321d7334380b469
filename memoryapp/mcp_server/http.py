"""/mcp over HTTP, in the Daphne process that serves the app: `with_mcp(django_app)` sends the /mcp path
to the SDK's streamable HTTP app and the rest to Django.

Around the SDK: the host is checked against ALLOWED_HOSTS and, with SECURE_SSL_REDIRECT, the scheme is
HTTPS (as Django checks them for its pages); the Bearer token, a personal `mem_…` token or an OAuth access
token bound to /mcp, is checked by memoryapp/principals.py (401 without a valid one, naming where the
protected resource metadata is so an OAuth client can sign its user in); each request runs in a thread context of its own with Django's request
signals, as Django's ASGI handler runs a view, so its database connection is opened and closed the
same way.

Stateless mode, JSON answers. Every POST stands alone: no session lives in this process's memory, so
several Daphne processes behind one address need no sticky routing, a restart loses nothing a client
holds, a revoked token stops working at its next call, and there is nothing to expire. The tools need
nothing that a session would give (no server-to-client requests, no subscriptions).

Daphne sends no ASGI lifespan events, so the SDK's session manager (which even stateless mode needs:
its task group runs each request's server) is started lazily, on the first /mcp request, in a task that
lives as long as the event loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import json

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.http.request import split_domain_port, validate_host
from mcp.server.transport_security import TransportSecuritySettings

from memoryapp.lib.origin import bearer_challenge, public_origin
from memoryapp.principals import principal_for_token

from .calls import CLIENT_KEY, SCOPES_KEY, USER_KEY
from .tools import server

MCP_PATH = "/mcp"

sdk_app = server.streamable_http_app(
    streamable_http_path=MCP_PATH,
    stateless_http=True,
    json_response=True,
    max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,  # the REST API's limit: an import fits both
    # The host is checked below against ALLOWED_HOSTS, like every other path; the SDK's own check would
    # only know localhost.
    transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
)


class LazyStart:
    """Enters the session manager's `run()` once, on the first request, and keeps it open."""

    def __init__(self) -> None:
        self._ready: asyncio.Event | None = None
        self._task: asyncio.Task | None = None  # held: the event loop keeps only weak references

    async def __call__(self) -> None:
        if self._ready is None:  # one event loop, no await between check and set: started once
            self._ready = asyncio.Event()
            # An empty context: the long-lived task must not carry the first request's (its thread, its user).
            self._task = asyncio.get_running_loop().create_task(self._run(self._ready), context=contextvars.Context())
        await self._ready.wait()

    @staticmethod
    async def _run(ready: asyncio.Event) -> None:
        try:
            async with server.session_manager.run():
                ready.set()
                await asyncio.Event().wait()  # as long as the process
        finally:
            ready.set()  # a failed start answers 503 instead of hanging


ensure_started = LazyStart()


async def _answer(send, status: int, detail: str, headers: list[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope, name: bytes) -> str:
    return next((value.decode("latin-1") for key, value in scope["headers"] if key == name), "")


def _host_allowed(scope) -> bool:
    """Django's rule (HttpRequest.get_host): ALLOWED_HOSTS, or the local names while DEBUG leaves it empty."""
    domain, _port = split_domain_port(_header(scope, b"host"))
    allowed = settings.ALLOWED_HOSTS or ([".localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])
    return bool(domain) and validate_host(domain, allowed)


def _secure(scope) -> bool:
    """HTTPS, directly or behind a proxy that says so (SECURE_PROXY_SSL_HEADER), as Django tells it."""
    if scope.get("scheme") == "https":
        return True
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if not proxy:
        return False
    name, value = proxy  # ("HTTP_X_FORWARDED_PROTO", "https")
    header = name.removeprefix("HTTP_").replace("_", "-").lower().encode()
    return _header(scope, header).split(",")[0].strip() == value


async def mcp_app(scope, receive, send) -> None:
    if not _host_allowed(scope):
        await _answer(send, 400, "Bad Request")
        return
    if settings.SECURE_SSL_REDIRECT and not _secure(scope):  # Django would redirect; a token must not travel in clear
        await _answer(send, 403, "use https: this server takes API tokens over HTTPS only")
        return
    scheme, _, token = _header(scope, b"authorization").partition(" ")
    origin = public_origin("https" if _secure(scope) else "http", _header(scope, b"host"))
    async with ThreadSensitiveContext():  # this request's own worker thread, as Django gives a view
        await signals.request_started.asend(sender=None, scope=scope)  # drops a stale DB connection
        try:
            principal = (
                await sync_to_async(principal_for_token)(token.strip(), origin + MCP_PATH)
                if scheme.lower() == "bearer"
                else None
            )
            if principal is None:
                await _answer(
                    send,
                    401,
                    "a valid API token is needed: Authorization: Bearer mem_…, or an OAuth sign-in (WWW-Authenticate)",
                    [(b"www-authenticate", bearer_challenge(origin, MCP_PATH).encode("latin-1"))],
                )
                return
            await ensure_started()
            if server.session_manager._task_group is None:  # noqa: SLF001  the start failed (logged by the SDK)
                await _answer(send, 503, "the MCP server could not start; see the server log")
                return
            await sdk_app(
                {**scope, USER_KEY: principal.user, SCOPES_KEY: principal.scopes, CLIENT_KEY: principal.client},
                receive,
                send,
            )
        finally:
            await signals.request_finished.asend(sender=None)  # closes it, as after a view


def with_mcp(django_app):
    """The HTTP app: /mcp to the MCP server, everything else to Django."""

    async def app(scope, receive, send) -> None:
        if scope["path"] == MCP_PATH or scope["path"].startswith(MCP_PATH + "/"):
            await mcp_app(scope, receive, send)
        else:
            await django_app(scope, receive, send)

    return app
