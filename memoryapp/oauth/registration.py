"""What open client registration (RFC 7591, POST /register) takes: clients that sign a person in through
the consent page and nothing else, so that a registration alone never reaches anyone's memory.

    grant_types                 authorization_code, with refresh_token (the default when absent)
    response_types              code
    token_endpoint_auth_method  none (public, PKCE), client_secret_basic, client_secret_post
    redirect_uris               https, or http on a loopback address (RFC 8252: Claude Code, local tools)

The library checks the rest (JSON, types, a redirect URI for the code grant); it turns these in a 400
`invalid_client_metadata` with the sentence returned here.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, JsonResponse

from . import limits

GRANT_TYPES = ("authorization_code", "refresh_token")
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")
WINDOW_SECONDS = limits.HOUR


def refusal(body: bytes) -> str | None:
    """Why this registration is refused, in one sentence; None when memoryapp takes it (or when the body is
    malformed in a way the library words itself)."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if not isinstance(data.get("client_name", ""), str):
        return "client_name must be a string"
    grant_types = data.get("grant_types", ["authorization_code"])
    if isinstance(grant_types, list) and all(isinstance(g, str) for g in grant_types):
        other = [g for g in grant_types if g not in GRANT_TYPES]
        if other or "authorization_code" not in grant_types:
            return (
                f"grant_types: only authorization_code (with refresh_token) is offered, not {(other or grant_types)[0]!r}; "
                "a person signs in and allows each client"
            )
    response_types = data.get("response_types", ["code"])
    if isinstance(response_types, list) and any(r != "code" for r in response_types):
        return "response_types: only code is offered"
    method = data.get("token_endpoint_auth_method", "client_secret_basic")
    if method not in AUTH_METHODS:
        return f"token_endpoint_auth_method: one of {', '.join(AUTH_METHODS)}, not {method!r}"
    redirect_uris = data.get("redirect_uris", [])
    if isinstance(redirect_uris, list):
        for uri in redirect_uris:
            if isinstance(uri, str) and not redirect_uri_allowed(uri):
                return (
                    f"redirect_uris: {uri!r} must use https, or http on a loopback address "
                    "(127.0.0.1, [::1], localhost), and have no fragment"
                )
    return None


def redirect_uri_allowed(uri: str) -> bool:
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018  a port that is not a number raises here
    except ValueError:
        return False
    if parts.fragment or "#" in uri or not parts.hostname or parts.username is not None:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS)


def throttled(request: HttpRequest) -> JsonResponse | None:
    """A 429 once this address registered OAUTH_REGISTRATIONS_PER_HOUR clients this hour; counts this one."""
    if limits.take(request, "oauth-register", settings.OAUTH_REGISTRATIONS_PER_HOUR, WINDOW_SECONDS):
        return None
    return limits.too_many(
        "too_many_requests", "too many registrations from this address; try in an hour", WINDOW_SECONDS
    )


def refused(description: str) -> JsonResponse:
    return JsonResponse({"error": "invalid_client_metadata", "error_description": description}, status=400)
