"""Hardening (issue #9): CSRF on forms and htmx posts, security headers, session cookie flags.
Elsewhere: login limit (test_login_limit.py), API write limit and hashed tokens (api/), password
validation (test_auth_pages.py), staff-only admin (test_isolation.py), `check --deploy` (test_deploy_check.py).
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from conversations.models import Conversation, Message
from memoryapp.engine.memories.write import add_memory
from memoryapp.models import MemoryStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def strict_client(alice) -> Client:
    """A browser-like client: CSRF is enforced (the default test client skips it)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    return client


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(strict_client, alice):
    memory = add_memory(alice, "I like green tea").memory
    conversation = Conversation.objects.create(user=alice, title="kept")
    Message.objects.create(conversation=conversation, role="user", content="hi")

    for url in (
        f"/settings/memories/{memory.pk}/delete",
        "/settings/memories/clear",
        f"/c/{conversation.pk}/delete/",
        f"/c/{conversation.pk}/rename/",
        "/settings/",
    ):
        assert strict_client.post(url, {"title": "x", "revoke_token": "1"}).status_code == 403, url
    memory.refresh_from_db()
    assert memory.status == MemoryStatus.ACTIVE and Conversation.objects.get(pk=conversation.pk).title == "kept"


def test_htmx_posts_carry_the_token_the_page_gives_them(strict_client, alice):
    memory = add_memory(alice, "I like green tea").memory
    page = strict_client.get("/settings/memories").content.decode()
    header_token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', page).group(1)

    deleted = strict_client.post(
        f"/settings/memories/{memory.pk}/delete", HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=header_token
    )
    assert deleted.status_code == 200
    memory.refresh_from_db()
    assert memory.status == MemoryStatus.DELETED


def test_every_page_sends_the_security_headers(alice_client):
    for path in ("/", "/settings/memories", "/settings/", "/api/docs", "/accounts/login/"):
        response = alice_client.get(path, follow=True)
        assert response.status_code == 200, path
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe-eval" not in policy
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "same-origin"


def test_pages_have_no_inline_script_for_the_policy_to_block(alice_client, alice):
    conversation = Conversation.objects.create(user=alice, title="kept")
    Message.objects.create(conversation=conversation, role="user", content="hi")
    for path in ("/", f"/c/{conversation.pk}/", "/settings/memories", "/settings/", "/api/docs"):
        page = alice_client.get(path).content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", page), path
        assert not re.search(r"\son[a-z]+=", page), path  # no onclick= / onchange= handlers


def test_the_session_cookie_is_http_only_and_same_site(client, alice):
    from tests.conftest import PASSWORD

    page = client.get("/accounts/login/")
    client.post(
        "/accounts/login/",
        {"username": "alice", "password": PASSWORD, "csrfmiddlewaretoken": page.context["csrf_token"]},
    )
    cookie = client.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
