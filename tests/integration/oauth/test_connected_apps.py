"""Settings › Connected apps: the OAuth clients a user let in, what each may do, and Disconnect, after which
the client's token no longer opens /mcp (memoryapp/principals.py)."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, get_refresh_token_model

from memoryapp.principals import hash_token, principal_for_token

pytestmark = pytest.mark.django_db

MCP = "http://testserver/mcp"


def _grant(user, name: str, scope: str) -> str:
    """An app the user allowed, holding an access token and its refresh token; the access token's secret."""
    app = get_application_model().objects.create(
        name=name,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:8765/callback",
    )
    secret = secrets.token_urlsafe(30)
    access = get_access_token_model().objects.create(
        user=user,
        application=app,
        token_checksum=hash_token(secret),
        expires=timezone.now() + timedelta(hours=1),
        scope=scope,
    )
    get_refresh_token_model().objects.create(
        user=user, application=app, access_token=access, token_checksum=hash_token(secrets.token_urlsafe(30))
    )
    return secret


def _settings(user) -> tuple[Client, str]:
    client = Client()
    client.force_login(user)
    return client, client.get("/settings/").content.decode()


def test_settings_lists_the_apps_a_user_let_in_and_what_each_may_do(alice, bob):
    _grant(alice, "Claude", "memories:read memories:write")
    _grant(alice, "Reader bot", "memories:read")
    _grant(bob, "Bob's ChatGPT", "memories:read memories:write")

    _client, page = _settings(alice)

    assert "Claude" in page and "Reader bot" in page and "Bob&#x27;s ChatGPT" not in page
    assert "read and change memories" in page and "read memories" in page


def test_disconnect_takes_the_apps_tokens_and_it_must_ask_again(alice, bob):
    secret = _grant(alice, "Claude", "memories:read memories:write")
    assert principal_for_token(secret, MCP) is not None
    app = get_application_model().objects.get(name="Claude")

    # bob cannot disconnect alice's app: nothing of his is there
    bob_client, _page = _settings(bob)
    bob_client.post("/settings/", {"disconnect_app": app.pk})
    assert principal_for_token(secret, MCP) is not None

    client, _page = _settings(alice)
    answer = client.post("/settings/", {"disconnect_app": app.pk}, follow=True)

    assert "The app was disconnected" in answer.content.decode()
    assert principal_for_token(secret, MCP) is None
    assert not get_refresh_token_model().objects.filter(user=alice).exists()
    assert "No app is connected" in _settings(alice)[1]


def test_in_chinese_the_section_is_connected_apps(alice):
    _grant(alice, "Claude", "memories:read")
    client = Client()
    client.force_login(alice)
    client.cookies["django_language"] = "zh-hans"
    page = client.get("/settings/").content.decode()
    assert "连接的应用" in page and "读取记忆" in page and "断开" in page
