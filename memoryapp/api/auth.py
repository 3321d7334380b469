"""API authentication: personal Bearer tokens (stored as sha256; looked up in memoryapp/principals.py, which
/mcp shares) and the browser session (with CSRF). OAuth access tokens are for /mcp only, for now.

Both are applied to every route by `NinjaAPI(auth=...)` in api.py, so every router gets them.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.utils import timezone
from ninja.security import HttpBearer, SessionAuth

from memoryapp.models import ApiToken
from memoryapp.principals import TOKEN_PREFIX, hash_token, user_for_token

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
    def authenticate(self, request: HttpRequest, token: str):
        user = user_for_token(token)
        if user is not None:
            request.user = user  # views read request.user whichever way the caller came in
        return user


bearer_auth = BearerTokenAuth()
session_auth = SessionAuth(csrf=True)  # unsafe methods need the CSRF token, as on any Django form
