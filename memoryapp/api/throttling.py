"""The REST API's write limit, with django-ninja's throttling: API_WRITES_PER_MINUTE per user per minute
(a sliding window in the shared cache), over every unsafe route, the chat turns included."""

from __future__ import annotations

from types import SimpleNamespace

from django.conf import settings
from django.http import HttpRequest
from ninja.throttling import AuthRateThrottle

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class WritesPerUser(AuthRateThrottle):
    scope = "api-writes"

    def __init__(self) -> None:
        """No rate fixed here: `allow_request` reads the setting, so a changed setting applies at once."""

    def allow_request(self, request: HttpRequest) -> bool:
        self.num_requests, self.duration = settings.API_WRITES_PER_MINUTE, 60
        return super().allow_request(request)

    def get_cache_key(self, request: HttpRequest) -> str | None:  # type: ignore[override]  # None: not counted
        if request.method in SAFE_METHODS:
            return None
        user = getattr(request, "auth", None)
        ident = user.pk if user is not None else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def allow_write(user) -> bool:
    """Count one write by `user` against the same limit, for an edge that is not a ninja route (the MCP
    server): True while the user is under it."""
    caller = SimpleNamespace(method="POST", auth=user, META={})  # what the limit reads of a request
    return WritesPerUser().allow_request(caller)  # type: ignore[arg-type]


def too_many_writes() -> str:
    return f"too many changes: at most {settings.API_WRITES_PER_MINUTE} per minute; try again in a minute"
