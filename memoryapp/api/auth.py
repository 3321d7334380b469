"""API authentication: personal Bearer tokens (stored as sha256) and the browser session (with CSRF).

Both are applied to every route by `NinjaAPI(auth=...)` in api.py, so every router gets them.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.utils import timezone
from ninja.security import HttpBearer, SessionAuth

from memoryapp.models import ApiToken

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class AuthedRequest(HttpRequest):
    """What an API route is handed: django-ninja sets `auth` to the caller (a Bearer token's user or the
    session's), before the route runs; a route never sees an anonymous caller."""

    auth: User


TOKEN_PREFIX = "mem_"
LAST_USED_RESOLUTION = timedelta(minutes=1)  # at most one write per token per minute for `last_used_at`


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_token(user: User, name: str) -> tuple[ApiToken, str]:
    """A new token and its secret; the secret is returned once and never stored."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name.strip()[:100] or "token", token_hash=hash_token(secret))
    return token, secret


def revoke_token(user: User, token_id: int) -> bool:
    return bool(
        ApiToken.objects.filter(user=user, pk=token_id, revoked_at__isnull=True).update(revoked_at=timezone.now())
    )


def user_for_token(secret: str) -> User | None:
    """The active user a live token belongs to, or None; notes when the token was last used. Shared by
    the REST API and the MCP server (memoryapp/mcp_server), so both accept exactly the same tokens."""
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > 200:
        return None
    found = (
        ApiToken.objects.select_related("user")
        .filter(token_hash=hash_token(secret), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if found is None:
        return None
    now = timezone.now()
    if found.last_used_at is None or now - found.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=found.pk).update(last_used_at=now)
    return found.user


class BearerTokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str):
        user = user_for_token(token)
        if user is not None:
            request.user = user  # views read request.user whichever way the caller came in
        return user


bearer_auth = BearerTokenAuth()
session_auth = SessionAuth(csrf=True)  # unsafe methods need the CSRF token, as on any Django form
