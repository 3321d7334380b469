"""API authentication: a Bearer token (a personal `mem_…` token or an OAuth access token bound to /api/ or
to nothing; both looked up in memoryapp/principals.py, which /mcp shares) and the browser session (with
CSRF).

Both are applied to every route by `NinjaAPI(auth=...)` in routes.py, so every router gets them. An OAuth
grant of `memories:read` alone may call the routes that only read (GET, and the routes marked
`reads_only`); any other answers 403. The token's program is recorded on what the request reads and writes
(memoryapp/lib/clients.py).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.utils import timezone
from ninja.errors import HttpError
from ninja.security import HttpBearer, SessionAuth

from memoryapp.api.throttling import SAFE_METHODS
from memoryapp.lib import clients
from memoryapp.lib.origin import request_origin
from memoryapp.models import ApiToken
from memoryapp.principals import TOKEN_PREFIX, hash_token, principal_for_token

API_PATH = "/api/"  # the resource an OAuth token must be bound to (or to nothing) to be taken here
READ_ONLY = (
    "this token may only read memories; to add, change or delete them, connect again and allow changes on "
    "the consent page"
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class AuthedRequest(HttpRequest):
    """What an API route is handed: django-ninja sets `auth` to the caller (a Bearer token's user or the
    session's), before the route runs; a route never sees an anonymous caller."""

    auth: User


def create_token(user: User, name: str) -> tuple[ApiToken, str]:
    """A new token and its secret; the secret is returned once and never stored."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name.strip()[:100] or "token", token_hash=hash_token(secret))
    return token, secret


def revoke_token(user: User, token_id: int) -> bool:
    return bool(
        ApiToken.objects.filter(user=user, pk=token_id, revoked_at__isnull=True).update(revoked_at=timezone.now())
    )


class BearerTokenAuth(HttpBearer):
    def __init__(self, *, reads_only: bool = False) -> None:
        """`reads_only`: the route only reads, whatever its method (a search sent as POST)."""
        super().__init__()
        self.reads_only = reads_only

    def authenticate(self, request: HttpRequest, token: str):
        principal = principal_for_token(token, request_origin(request) + API_PATH)
        if principal is None:
            return None
        if not principal.can_write and not self.reads_only and request.method not in SAFE_METHODS:
            raise HttpError(403, READ_ONLY)
        request.user = principal.user  # views read request.user whichever way the caller came in
        clients.set_for_this_request(principal.client)
        return principal.user


class SignedInSessionAuth(SessionAuth):
    """The browser's session; unsafe methods need the CSRF token, as on any Django form. A request with no
    signed-in session is simply not let in by it: a write with a token that expired, was revoked or is
    bound elsewhere answers 401 with the challenge (the client's cue to refresh or sign in again, RFC 6750),
    not the CSRF check's 403, which a client would read as a refusal to retry."""

    def __call__(self, request: HttpRequest):
        if not request.user.is_authenticated:
            return None
        return super().__call__(request)


bearer_auth = BearerTokenAuth()
bearer_read_auth = BearerTokenAuth(reads_only=True)
session_auth = SignedInSessionAuth(csrf=True)
