from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client, override_settings

from memoryapp.engine.memories import imports
from memoryapp.engine.memories.write import add_memory, delete_memory
from memoryapp.models import ApiToken, Memory, MemoryEvent

pytestmark = pytest.mark.django_db


def test_it_creates_a_memory_and_lists_it(api, alice):
    response = api.post("/memories", {"content": "Prefers tea over coffee", "kind": "preference"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["action"] == "created" and body["memory"]["content"] == "Prefers tea over coffee"
    assert "embedding" not in body["memory"]
    listed = api.get("/memories").json()
    assert [m["content"] for m in listed["items"]] == ["Prefers tea over coffee"]
    assert MemoryEvent.objects.filter(memory_ref=body["memory"]["id"], actor="api", action="created").exists()


def test_it_rejects_bad_input_with_a_readable_message(api):
    response = api.post("/memories", {"content": "   "})
    assert response.status_code == 422
    assert response.json() == {"detail": "content is empty", "field": "content"}


@pytest.mark.parametrize(
    "body, detail, field",
    [
        ({"content": "a\x00b"}, "content: must not contain NUL characters", "content"),
        ({"content": "x" * 2001}, "content is too long: at most 2000 characters", "content"),
        ({"content": "  "}, "content is empty", "content"),
        ({"content": "tea", "importance": "0.5"}, "importance: Input should be a valid number", "importance"),
    ],
)
def test_it_words_a_bad_new_memory_and_a_bad_edit_alike(api, alice, body, detail, field):
    memory = add_memory(alice, "Likes coffee").memory
    for response in (api.post("/memories", body), api.patch(f"/memories/{memory.pk}", body)):
        assert response.status_code == 422
        assert response.json() == {"detail": detail, "field": field}


def test_it_pages_with_a_cursor(api, alice):
    for i in range(5):
        one_hot = [0.0] * settings.EMBEDDING_DIM
        one_hot[i] = 1.0  # orthogonal vectors, so no two merge as near-duplicates
        add_memory(alice, f"Numbered fact {i}", embedding=one_hot)
    first = api.get("/memories?limit=2").json()
    second = api.get(f"/memories?limit=2&cursor={first['next_cursor']}").json()
    third = api.get(f"/memories?limit=2&cursor={second['next_cursor']}").json()
    seen = [m["id"] for page in (first, second, third) for m in page["items"]]
    assert len(seen) == 5 == len(set(seen)) and third["next_cursor"] is None
    assert api.get("/memories?cursor=garbage").status_code == 422


def test_it_filters_by_kind_and_status(api, alice):
    add_memory(alice, "Wants to run a marathon", kind="goal")
    gone = add_memory(alice, "Lives in Berlin", kind="fact").memory
    delete_memory(gone)
    assert [m["kind"] for m in api.get("/memories?kind=goal").json()["items"]] == ["goal"]
    assert [m["content"] for m in api.get("/memories?status=deleted").json()["items"]] == ["Lives in Berlin"]
    assert api.get("/memories?kind=nonsense").status_code == 422
    assert api.get("/memories?since=7283-03-08T05:30:54%2B21:42").json()["items"] == []  # odd offset: no 500
    assert api.get("/memories?until=9999-12-31T23:59:59-10:00").status_code == 422


def test_it_searches_by_meaning(api, alice):
    add_memory(alice, "Allergic to peanuts")
    add_memory(alice, "Works as a piano teacher")
    hits = api.post("/memories/search", {"query": "what music job do I have"}).json()["items"]
    assert hits[0]["memory"]["content"] == "Works as a piano teacher"


def test_a_short_word_finds_itself_not_a_word_that_starts_alike(api, alice):
    add_memory(alice, "My sister Anna lives in Munich")
    add_memory(alice, "I love jazz music on Sunday mornings")
    add_memory(alice, "I am training for the Berlin marathon in September")

    def found(query: str) -> list[str]:
        return [h["memory"]["content"] for h in api.post("/memories/search", {"query": query}).json()["items"]]

    assert found("music") == ["I love jazz music on Sunday mornings"]
    assert found("maraton")[0].startswith("I am training for the Berlin marathon")  # a typo still finds it
    assert "My sister Anna lives in Munich" in found("Munich")


def test_it_edits_by_superseding_and_keeps_history(api, alice):
    old = add_memory(alice, "Lives in Paris").memory
    response = api.patch(f"/memories/{old.pk}", {"content": "Lives in Lyon"})
    assert response.status_code == 200 and response.json()["action"] == "superseded"
    new_id = response.json()["memory"]["id"]
    assert [m["content"] for m in api.get("/memories").json()["items"]] == ["Lives in Lyon"]
    history = api.get(f"/memories/{old.pk}/history").json()
    assert [e["action"] for e in history] == ["superseded", "created"]
    assert api.patch(f"/memories/{old.pk}", {"content": "Lives in Nice"}).status_code == 409
    new_history = api.get(f"/memories/{new_id}/history").json()
    assert [(e["action"], (e["after"] or {}).get("content")) for e in new_history] == [
        ("created", "Lives in Lyon"),
        ("superseded", "Lives in Paris"),
        ("created", "Lives in Paris"),
    ]


def test_it_soft_deletes_and_restores(api, alice):
    memory = add_memory(alice, "Has a cat named Miso").memory
    assert api.delete(f"/memories/{memory.pk}").json()["memory"]["status"] == "deleted"
    assert api.get("/memories").json()["items"] == []
    assert api.post(f"/memories/{memory.pk}/restore").json()["memory"]["status"] == "active"
    memory.refresh_from_db()
    assert memory.status == "active"


def test_it_counts_by_type_and_status(api, alice):
    add_memory(alice, "Likes hiking", kind="preference")
    delete_memory(add_memory(alice, "Owns a red bike", kind="fact").memory)
    stats = api.get("/memories/stats").json()
    assert stats["total"] == 1 and stats["by_kind"]["preference"] == 1
    assert stats["by_status"] == {"active": 1, "forgotten": 0, "deleted": 1}


def test_it_exports_and_imports_round_trip(api, alice, bob):
    spanish = add_memory(alice, "Speaks Spanish", kind="fact", context="I grew up in Madrid").memory
    exported = api.get("/memories/export").json()
    assert exported["format"] == "memoryapp.memories" and exported["memories"][0]["content"] == "Speaks Spanish"
    assert exported["memories"][0]["context"] == "I grew up in Madrid"  # the same file the memories page sends
    assert MemoryEvent.objects.get(memory_ref=spanish.pk, action="exported").actor == "api"
    markdown = api.get("/memories/export?format=markdown")
    assert markdown["Content-Type"].startswith("text/markdown") and "Speaks Spanish" in markdown.content.decode()
    Memory.objects.filter(user=alice).delete()
    response = api.post("/memories/import", {"memories": exported["memories"]})
    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert not Memory.objects.filter(user=alice).exists()  # the worker writes it
    imports.run_import(response.json()["id"])  # what the worker runs, once the request has committed
    job = api.get(response["Location"].removeprefix("/api")).json()
    assert (job["status"], job["done"], job["total"], job["imported"], job["duplicates"]) == ("done", 1, 1, 1, 0)
    assert Memory.objects.get(user=alice).source == "imported"
    assert MemoryEvent.objects.get(memory__user=alice, action="imported").actor == "api"


def test_it_imports_nothing_when_one_row_is_bad(api, alice):
    rows = [
        {"content": "Good row", "valid_from": "2025-01-01T00:00:00+21:00"},
        {"content": "Bad kind", "kind": "opinion"},
        {"content": ""},
        {"content": "Too late", "valid_from": "9999-12-31T23:59:59-10:00"},
    ]
    response = api.post("/memories/import", {"memories": rows})
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [(e["row"], e["field"]) for e in errors] == [(2, "kind"), (3, "content"), (4, "valid_from")]
    assert not Memory.objects.filter(user=alice).exists()


def test_it_requires_authentication(client, alice):
    assert client.get("/api/memories").status_code == 401
    assert client.get("/api/memories", HTTP_AUTHORIZATION="Bearer mem_wrong").status_code == 401


def test_it_refuses_a_revoked_token(api, alice, alice_token):
    ApiToken.objects.update(revoked_at="2026-01-01T00:00:00Z")
    assert api.get("/memories").status_code == 401


def test_it_accepts_the_session_and_needs_csrf_for_writes(alice):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    assert browser.get("/api/memories").status_code == 200
    assert browser.post("/api/memories", {"content": "x"}, content_type="application/json").status_code == 403
    browser.get("/settings/")  # sets the csrf cookie
    token = browser.cookies["csrftoken"].value
    response = browser.post(
        "/api/memories", {"content": "Reads sci-fi"}, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 201


@override_settings(API_WRITES_PER_MINUTE=2)
def test_it_rate_limits_writes(api, alice):
    from django.core.cache import cache

    cache.clear()
    codes = [api.post("/memories", {"content": f"Fact number {i} {'q' * i}"}).status_code for i in range(3)]
    assert codes[:2] == [201, 201] and codes[2] == 429
    refused = api.post("/memories", {"content": "one more"})
    assert "at most 2 per minute" in refused.json()["detail"] and 0 < int(refused["Retry-After"]) <= 60
    assert api.get("/memories").status_code == 200  # reads are not limited
    assert api.post("/memories/search", {"query": "fact"}).status_code == 200
    assert api.post("/conversations/1/messages", {"content": "hi"}).status_code == 429  # chat turns are writes
    cache.clear()


def test_it_serves_openapi_docs(client):
    assert client.get("/api/docs").status_code == 200
    schema = client.get("/api/openapi.json").json()
    assert "/api/memories/{memory_id}/history" in schema["paths"]
    assert "embedding" not in str(schema["components"]["schemas"]["MemoryOut"])


def test_a_memory_takes_cues_shows_them_and_edits_them(api, alice):
    created = api.post(
        "/memories",
        {
            "content": "Docker builds need HTTPS_PROXY on the office network",
            "cues": ["building Docker images", "构建镜像", "building Docker images"],
        },
    )
    assert created.status_code == 201, created.content
    memory = created.json()["memory"]
    assert memory["cues"] == ["building Docker images", "构建镜像"]  # a repeat dropped
    edited = api.patch(f"/memories/{memory['id']}", {"cues": ["docker compose up"]})
    assert edited.status_code == 200 and edited.json()["memory"]["cues"] == ["docker compose up"]
    assert api.get(f"/memories/{memory['id']}").json()["cues"] == ["docker compose up"]


@pytest.mark.parametrize(
    "cues, field",
    [
        (["my password is hunter2"], "cues.0"),
        ("building Docker images", "cues"),
        ([f"situation {i}" for i in range(13)], "cues"),
    ],
)
def test_bad_cues_are_a_422_that_names_them(api, alice, cues, field):
    response = api.post("/memories", {"content": "Likes green tea", "cues": cues})
    assert response.status_code == 422 and response.json()["field"] == field, response.content


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("My flight to Munich is LH2231 on Friday", "My flight to Munich is LH2235 on Friday"),
        ("我的车牌号是浙A 8K261", "我的车牌号是浙A 8K267"),
    ],
)
def test_a_new_value_in_the_same_words_replaces_the_memory_instead_of_merging(api, alice, first, second):
    old = api.post("/memories", {"content": first}).json()["memory"]
    response = api.post("/memories", {"content": second})

    assert response.status_code == 200, response.content
    assert response.json()["action"] == "superseded" and response.json()["memory"]["content"] == second
    current = [m["content"] for m in api.get("/memories").json()["items"]]
    assert current == [second]
    assert Memory.objects.get(pk=old["id"]).valid_until is not None  # kept in history


def test_the_same_memory_said_again_is_still_merged(api, alice):
    api.post("/memories", {"content": "My flight to Munich is LH2231 on Friday"})
    response = api.post("/memories", {"content": "my flight to Munich is LH2231 on Friday."})

    assert response.json()["action"] == "merged"
    assert Memory.objects.filter(user=alice).count() == 1
