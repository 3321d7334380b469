"""The address the authorization server and /mcp call themselves: PUBLIC_URL when it is set (behind a proxy
that rewrites the Host), else the scheme and Host of the request. The issuer, the resource a token is bound
to and the `resource_metadata` URL of /mcp's 401 are all built from it, so they agree."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource"
REALM = "memoryapp"


def public_origin(scheme: str, host: str) -> str:
    """`https://memory.example.com`: no path, no trailing slash (the issuer's form, RFC 8414)."""
    return settings.PUBLIC_URL or f"{scheme}://{host}"


def request_origin(request: HttpRequest) -> str:
    return public_origin(request.scheme or "http", request.get_host())


def bearer_challenge(origin: str, resource_path: str) -> str:
    """The WWW-Authenticate value of a 401 from the resource at `resource_path` (RFC 9728 §5.1): where its
    protected resource metadata is, from which a client finds the authorization server."""
    return f'Bearer realm="{REALM}", resource_metadata="{origin}{RESOURCE_METADATA_PATH}{resource_path}"'
