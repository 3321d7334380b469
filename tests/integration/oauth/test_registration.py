"""Open client registration (RFC 7591) takes clients that sign a person in through the consent page, and
nothing else; it is limited per address."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import override_settings
from oauth2_provider.models import get_application_model

from memoryapp.oauth import registration
from memoryapp.web import ratelimit

from .flow import CALLBACK, register

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_public_client_with_a_loopback_redirect_is_registered(app_server):
    answer = register(app_server.url, client_name="Claude Code")

    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["redirect_uris"] == [CALLBACK]
    assert body["grant_types"] == ["authorization_code", "refresh_token"]
    assert body["token_endpoint_auth_method"] == "none" and "client_secret" not in body
    app = get_application_model().objects.get(client_id=body["client_id"])
    assert app.name == "Claude Code" and app.client_type == "public" and app.user is None


def test_a_confidential_client_gets_a_secret(app_server):
    answer = register(
        app_server.url,
        redirect_uris=["https://claude.ai/api/mcp/auth_callback"],
        token_endpoint_auth_method="client_secret_post",
    )
    assert answer.status_code == 201, answer.text
    assert answer.json()["client_secret"]


@pytest.mark.parametrize(
    ("metadata", "words"),
    [
        ({"grant_types": ["client_credentials"]}, "only authorization_code"),
        ({"grant_types": ["authorization_code", "password"]}, "'password'"),
        ({"grant_types": ["implicit"]}, "only authorization_code"),
        ({"grant_types": ["refresh_token"]}, "only authorization_code"),
        ({"response_types": ["token"]}, "only code"),
        ({"token_endpoint_auth_method": "private_key_jwt"}, "private_key_jwt"),
        ({"redirect_uris": ["http://evil.example/callback"]}, "https, or http on a loopback"),
        ({"redirect_uris": ["https://app.example/cb#frag"]}, "no fragment"),
        ({"redirect_uris": ["javascript:alert(1)"]}, "https"),
        ({"redirect_uris": []}, "redirect_uris is required"),
        ({"redirect_uris": "https://app.example/cb"}, "redirect_uris must be an array"),
        ({"client_name": "x" * 300}, "name"),
        ({"client_name": 5}, "client_name must be a string"),
        ({"redirect_uris": ["https://[::1/cb"]}, "must use https"),
    ],
)
def test_other_clients_are_refused_with_a_reason(app_server, metadata, words):
    answer = register(app_server.url, **metadata)

    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "invalid_client_metadata"
    assert words in answer.json()["error_description"]
    assert not get_application_model().objects.exists()


def test_a_body_that_is_not_json_is_a_400(app_server):
    import httpx

    answer = httpx.post(f"{app_server.url}/register", content=b"{not json", timeout=10)
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_client_metadata"


@override_settings(OAUTH_REGISTRATIONS_PER_HOUR=2)
def test_registrations_are_limited_per_address(client):
    address, other = "198.51.100.23", "198.51.100.24"
    for remote in (address, other):  # counted by an earlier run this hour
        cache.delete(ratelimit._key(f"oauth-register:{remote}", registration.WINDOW_SECONDS))
    body = {"client_name": "bot", "redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"}

    def post(remote: str):
        return client.post("/register", body, content_type="application/json", REMOTE_ADDR=remote)

    assert [post(address).status_code for _ in range(3)] == [201, 201, 429]
    assert "too many registrations" in post(address).json()["error_description"]
    assert post(other).status_code == 201  # another address is not held back
