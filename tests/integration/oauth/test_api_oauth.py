"""/api/ with OAuth access tokens, as a program that connected through the consent page calls it: a grant for
the REST API reads and writes as its user, a read-only grant only reads, a token for /mcp is not one for /api/
(nor the other way), and a 401 says where a client finds how to sign in."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from conversations.models import Conversation
from memoryapp.models import Memory, MemoryEvent
from memoryapp.principals import disconnect_app, hash_token

from .flow import INITIALIZE, App, signed_in

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def api(url: str, token: str) -> httpx.Client:
    return httpx.Client(base_url=f"{url}/api", headers={"Authorization": f"Bearer {token}"}, timeout=30)


def api_token(url: str, user, *, resource: str = "/api", **overrides) -> str:
    """An access token of `user`'s for `url + resource` (the protected resource metadata of /api/ names
    `<origin>/api`, which a client following RFC 9728 asks for)."""
    app = App.registered(url)
    return app.tokens(signed_in(url, user), resource=url + resource, **overrides)["access_token"]


def post_mcp(url: str, token: str) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}"}
    return httpx.post(f"{url}/mcp", json=INITIALIZE, headers=headers, timeout=10)


def snapshot(user) -> dict:
    return {
        "memories": sorted(Memory.objects.filter(user=user).values_list("pk", "content", "status", "valid_until")),
        "conversations": sorted(Conversation.objects.filter(user=user).values_list("pk", "title")),
        "events": MemoryEvent.objects.filter(user=user).count(),
    }


@pytest.mark.parametrize("resource", ["/api", "/api/", ""], ids=["metadata's resource", "trailing slash", "origin"])
def test_a_grant_for_the_api_lists_searches_and_adds_as_its_user(app_server, alice, bob, resource):
    Memory.objects.create(user=alice, content="I grow tomatoes on the balcony")
    Memory.objects.create(user=bob, content="Bob keeps bees")
    client = api(app_server.url, api_token(app_server.url, alice, resource=resource))

    added = client.post("/memories", json={"content": "I cycle to work"})
    listed = client.get("/memories")
    found = client.post("/memories/search", json={"query": "tomatoes"})
    bees = client.post("/memories/search", json={"query": "bees"})

    assert added.status_code == 201, added.text
    assert sorted(m["content"] for m in listed.json()["items"]) == ["I cycle to work", "I grow tomatoes on the balcony"]
    assert [hit["memory"]["content"] for hit in found.json()["items"]] == ["I grow tomatoes on the balcony"]
    assert bees.json()["items"] == []  # bob's memory stays his
    memory = Memory.objects.get(pk=added.json()["memory"]["id"])
    app = get_application_model().objects.get()
    assert memory.user == alice
    assert memory.events.get().client == f"app:{app.pk}"  # the history names the program that wrote it


def test_a_read_only_grant_reads_and_every_write_is_a_403_that_changes_nothing(app_server, alice):
    kept = Memory.objects.create(user=alice, content="I am allergic to peanuts")
    token = api_token(app_server.url, alice, write=False)  # the user left "change your memories" unticked
    assert get_access_token_model().objects.get(token_checksum=hash_token(token)).scope == "memories:read"
    client = api(app_server.url, token)
    before = snapshot(alice)

    assert [m["id"] for m in client.get("/memories").json()["items"]] == [kept.pk]
    assert client.post("/memories/search", json={"query": "peanuts"}).json()["items"][0]["memory"]["id"] == kept.pk
    assert client.get(f"/memories/{kept.pk}").status_code == 200
    assert client.get("/conversations").status_code == 200
    writes = [
        client.post("/memories", json={"content": "I like jazz"}),
        client.patch(f"/memories/{kept.pk}", json={"content": "I am not allergic to anything"}),
        client.delete(f"/memories/{kept.pk}"),
        client.post(f"/memories/{kept.pk}/purge"),
        client.post("/conversations", json={"title": "a chat"}),
    ]

    for answer in writes:
        assert answer.status_code == 403, (answer.request.method, answer.request.url, answer.text)
        assert "this token may only read memories" in answer.json()["detail"]
    assert snapshot(alice) == before


def test_a_token_for_mcp_is_refused_by_the_api_and_one_for_the_api_by_mcp(app_server, alice):
    Memory.objects.create(user=alice, content="I grow tomatoes on the balcony")
    for_mcp = api_token(app_server.url, alice, resource="/mcp")
    for_api = api_token(app_server.url, alice)

    assert api(app_server.url, for_mcp).get("/memories").status_code == 401
    assert post_mcp(app_server.url, for_api).status_code == 401
    # each opens its own resource: the refusals are about where it is bound
    assert api(app_server.url, for_api).get("/memories").status_code == 200
    assert post_mcp(app_server.url, for_mcp).status_code == 200


def test_a_401_names_the_apis_resource_metadata_and_the_authorization_server(app_server):
    metadata_url = f"{app_server.url}/.well-known/oauth-protected-resource/api"
    for answer in (
        httpx.get(f"{app_server.url}/api/memories", timeout=10),
        api(app_server.url, "not-a-token").post("/memories", json={"content": "x"}),
    ):
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"] == f'Bearer realm="memoryapp", resource_metadata="{metadata_url}"'
        assert "a valid API token is needed" in answer.json()["detail"]

    metadata = httpx.get(metadata_url, timeout=10)

    assert metadata.status_code == 200 and metadata.headers["content-type"].startswith("application/json")
    assert metadata.json()["resource"] == f"{app_server.url}/api"
    assert metadata.json()["authorization_servers"] == [app_server.url]
    server = httpx.get(f"{app_server.url}/.well-known/oauth-authorization-server", timeout=10).json()
    assert server["issuer"] == app_server.url  # the client signs in where the metadata sent it


def test_a_disconnected_apps_token_is_a_401_at_its_next_request(app_server, alice):
    client = api(app_server.url, api_token(app_server.url, alice))
    assert client.get("/memories").status_code == 200

    assert disconnect_app(alice, get_application_model().objects.get().pk)

    assert client.get("/memories").status_code == 401
    assert client.post("/memories", json={"content": "I cycle to work"}).status_code == 401
    assert not Memory.objects.filter(user=alice).exists()


def test_an_expired_token_is_a_401(app_server, alice):
    token = api_token(app_server.url, alice)
    client = api(app_server.url, token)
    assert client.get("/memories").status_code == 200

    get_access_token_model().objects.filter(token_checksum=hash_token(token)).update(
        expires=timezone.now() - timedelta(seconds=1)
    )

    assert client.get("/memories").status_code == 401
    assert client.post("/memories/search", json={"query": "tomatoes"}).status_code == 401
