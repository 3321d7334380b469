"""Which program a request came through, for the audit trail: an OAuth app (`app:<id>`) or a personal API
token (`token:<id>`); "" for the app's own pages and the background jobs it runs for itself.

The edge that authenticated the request sets it (the REST API's Bearer check, /mcp, a job that a program
queued); `MemoryEvent.client` takes it as its default, and access notes read it. A context variable, as
django-auditlog carries its actor, so that every write path records its client without each passing it on.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

APP_PREFIX = "app:"
TOKEN_PREFIX = "token:"
MAX_LENGTH = 40

_current: ContextVar[str] = ContextVar("memoryapp_client", default="")


def is_client(key: str) -> bool:
    """A well-formed key (`app:12`, `token:3`)."""
    prefix, _, number = key.partition(":")
    return f"{prefix}:" in (APP_PREFIX, TOKEN_PREFIX) and number.isdigit() and len(key) <= MAX_LENGTH


def current_client() -> str:
    return _current.get()


def app_client(application_id: int) -> str:
    return f"{APP_PREFIX}{application_id}"


def token_client(token_id: int) -> str:
    return f"{TOKEN_PREFIX}{token_id}"


@contextmanager
def acting_for(client: str) -> Iterator[None]:
    """Record `client` on every memory event and access made inside the block."""
    reset = _current.set(client)
    try:
        yield
    finally:
        _current.reset(reset)


def set_for_this_request(client: str) -> None:
    """For an authentication hook that cannot wrap the view in `acting_for`; ClientPerRequest clears it."""
    _current.set(client)


class ClientPerRequest:
    """Middleware: each request starts as no program, and what its authentication set ends with it (a
    thread serving the next request must not inherit it)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        reset = _current.set("")
        try:
            return self.get_response(request)
        finally:
            _current.reset(reset)
