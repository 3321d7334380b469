"""What a remote MCP client reads before it signs anyone in: the authorization server's metadata (RFC 8414)
and /mcp's protected resource metadata (RFC 9728), each naming the other, at the origin's root."""

from __future__ import annotations

import httpx
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_the_authorization_server_names_its_endpoints_at_the_root(app_server):
    url = app_server.url
    metadata = httpx.get(f"{url}/.well-known/oauth-authorization-server", timeout=10).json()

    assert metadata["issuer"] == url  # the bare origin: clients compare it exactly
    assert metadata["authorization_endpoint"] == f"{url}/authorize"
    assert metadata["token_endpoint"] == f"{url}/token"
    assert metadata["registration_endpoint"] == f"{url}/register"
    assert metadata["revocation_endpoint"] == f"{url}/revoke"
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["response_types_supported"] == ["code"]
    assert metadata["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert metadata["scopes_supported"] == ["memories:read", "memories:write"]
    assert set(metadata["token_endpoint_auth_methods_supported"]) == {
        "none",
        "client_secret_basic",
        "client_secret_post",
    }
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert "introspection_endpoint" not in metadata and "jwks_uri" not in metadata


def test_mcp_publishes_its_resource_and_authorization_server(app_server):
    url = app_server.url
    mcp = httpx.get(f"{url}/.well-known/oauth-protected-resource/mcp", timeout=10).json()
    origin = httpx.get(f"{url}/.well-known/oauth-protected-resource", timeout=10).json()

    assert mcp["resource"] == f"{url}/mcp"
    assert mcp["authorization_servers"] == [url]
    assert mcp["scopes_supported"] == ["memories:read", "memories:write"]
    assert mcp["bearer_methods_supported"] == ["header"]
    assert mcp["resource_name"] == "memoryapp"
    assert origin["resource"] == url and origin["authorization_servers"] == [url]


def test_the_endpoints_answer_without_a_trailing_slash(app_server):
    url = app_server.url
    for path in ("/token", "/register", "/revoke"):
        answer = httpx.post(f"{url}{path}", data={}, timeout=10)
        assert answer.status_code in (400, 401), (path, answer.status_code)  # the endpoint itself, no 301
    assert httpx.get(f"{url}/authorize", timeout=10).status_code == 302  # to the login page
    for path in ("/.well-known/openid-configuration", "/applications/", "/introspect", "/o/authorize/"):
        assert httpx.get(f"{url}{path}", timeout=10).status_code == 404, path  # nothing else of the library


def test_public_url_names_the_issuer_and_resource_behind_a_proxy(client, settings):
    settings.ALLOWED_HOSTS = ["internal"]  # the proxy calls the app by its inside name
    settings.PUBLIC_URL = "https://memory.example.com"
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "OIDC_ISS_ENDPOINT": settings.PUBLIC_URL}
    server = client.get("/.well-known/oauth-authorization-server", HTTP_HOST="internal:8000").json()
    resource = client.get("/.well-known/oauth-protected-resource/mcp", HTTP_HOST="internal:8000").json()

    assert server["issuer"] == "https://memory.example.com"
    assert server["authorization_endpoint"] == "https://memory.example.com/authorize"
    assert server["registration_endpoint"] == "https://memory.example.com/register"
    assert resource["resource"] == "https://memory.example.com/mcp"
    assert resource["authorization_servers"] == ["https://memory.example.com"]
