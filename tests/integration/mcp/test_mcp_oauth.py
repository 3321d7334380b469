"""/mcp with OAuth access tokens beside personal ones: the 401 that starts a client's sign-in, the scopes
a grant carries (a read-only one searches and cannot write), and the tokens it must refuse."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from memoryapp.api.auth import create_token
from memoryapp.models import EventAction, Memory, MemoryEvent
from memoryapp.principals import hash_token
from tests.integration.oauth.flow import INITIALIZE, App, register, signed_in

from .client import data, error, session

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def post_mcp(url: str, token: str | None) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{url}/mcp", json=INITIALIZE, headers=headers, timeout=10)


def test_a_401_names_the_protected_resource_metadata(app_server):
    answer = post_mcp(app_server.url, None)

    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == (
        f'Bearer realm="memoryapp", resource_metadata="{app_server.url}/.well-known/oauth-protected-resource/mcp"'
    )
    metadata = httpx.get(f"{app_server.url}/.well-known/oauth-protected-resource/mcp", timeout=10).json()
    assert metadata["resource"] == f"{app_server.url}/mcp"


def test_an_oauth_token_reads_and_writes_as_its_user(app_server, alice, bob):
    Memory.objects.create(user=bob, content="Bob keeps bees")
    tokens = App.registered(app_server.url).tokens(signed_in(app_server.url, alice))

    async def work(client):
        added = data(await client.call_tool("add_memory", {"content": "I grow tomatoes on the balcony"}))
        found = data(await client.call_tool("search_memories", {"query": "tomatoes"}))
        bees = data(await client.call_tool("search_memories", {"query": "bees"}))
        return added, found, bees

    added, found, bees = session(app_server.url, tokens["access_token"], work)
    assert added["action"] == "created"
    assert [hit["memory"]["id"] for hit in found["items"]] == [added["memory"]["id"]]
    assert bees["items"] == []  # bob's memory stays his
    assert Memory.objects.get(pk=added["memory"]["id"]).user == alice


def test_the_history_says_which_app_wrote_a_memory(app_server, alice, alice_client):
    app = App.registered(app_server.url, client_name="Claude")
    tokens = app.tokens(signed_in(app_server.url, alice))

    async def work(client):
        return data(await client.call_tool("add_memory", {"content": "我每天早上喝一杯美式"}))

    memory_id = session(app_server.url, tokens["access_token"], work)["memory"]["id"]
    created = MemoryEvent.objects.get(memory_ref=memory_id, action=EventAction.CREATED)
    assert created.client == f"app:{get_application_model().objects.get(client_id=app.client_id).pk}"
    history = alice_client.get(f"/settings/memories/{memory_id}/history").content.decode()
    assert '<span class="by-program" translate="no">Claude</span>' in history
    activity = alice_client.get(f"/settings/activity?client={created.client}").content.decode()
    assert "我每天早上喝一杯美式" in activity and "Claude" in activity


def test_a_read_only_grant_searches_and_cannot_write(app_server, alice):
    Memory.objects.create(user=alice, content="I am allergic to peanuts", lifecycle="core")
    app = App.registered(app_server.url)
    http = signed_in(app_server.url, alice)
    narrowed = app.tokens(http, write=False)  # the user left "change your memories" unticked
    requested = app.tokens(http, scope="memories:read")  # the client asked for reading only
    assert narrowed["scope"] == requested["scope"] == "memories:read"

    async def work(client):
        found = data(await client.call_tool("search_memories", {"query": "peanuts"}))
        refused = error(await client.call_tool("add_memory", {"content": "I like jazz"}))
        deleted = error(await client.call_tool("delete_memory", {"memory_id": found["items"][0]["memory"]["id"]}))
        core = (await client.read_resource("memory://core")).contents[0].text
        return found, refused, deleted, core

    for tokens in (narrowed, requested):
        found, refused, deleted, core = session(app_server.url, tokens["access_token"], work)
        assert len(found["items"]) == 1 and "peanuts" in core
        assert "this connection may only read memories" in refused
        assert "this connection may only read memories" in deleted
    assert Memory.objects.filter(user=alice).count() == 1


def test_a_token_for_another_resource_is_refused(app_server, alice):
    app = App.registered(app_server.url)
    tokens = app.tokens(signed_in(app_server.url, alice), resource=f"{app_server.url}/api/")
    assert post_mcp(app_server.url, tokens["access_token"]).status_code == 401
    assert post_mcp(app_server.url, app.tokens(signed_in(app_server.url, alice))["access_token"]).status_code == 200


def test_a_registration_token_is_not_a_user_token(app_server, alice):
    registration_token = register(app_server.url).json()["registration_access_token"]
    assert post_mcp(app_server.url, registration_token).status_code == 401


def test_expired_tokens_and_inactive_users_are_refused(app_server, alice):
    app = App.registered(app_server.url)
    expired = app.tokens(signed_in(app_server.url, alice))["access_token"]
    get_access_token_model().objects.filter(token_checksum=hash_token(expired)).update(
        expires=timezone.now() - timedelta(seconds=1)
    )
    assert post_mcp(app_server.url, expired).status_code == 401

    live = app.tokens(signed_in(app_server.url, alice))["access_token"]
    assert post_mcp(app_server.url, live).status_code == 200
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert post_mcp(app_server.url, live).status_code == 401


def test_personal_tokens_keep_both_scopes(app_server, alice):
    secret = create_token(alice, "cursor")[1]

    async def work(client):
        return data(await client.call_tool("add_memory", {"content": "I cycle to work"}))

    assert session(app_server.url, secret, work)["action"] == "created"
