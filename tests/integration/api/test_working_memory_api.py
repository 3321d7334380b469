"""`/api/conversations/{id}/working-memory`: a program reads and writes a chat's working memory, entry by
entry; only its owner can; entries expire after the TTL; a full chat, a bad key and a Redis outage are
answered with a sentence, never a 500."""

from __future__ import annotations

import time

import pytest
import redis
from django.test import Client

from conversations.models import Conversation
from memoryapp.api.auth import create_token
from memoryapp.engine.chat_state import store
from memoryapp.lib import clients

pytestmark = pytest.mark.django_db

BASE = "/api/conversations/{}/working-memory"


@pytest.fixture(autouse=True)
def no_write_limit(settings):
    settings.API_WRITES_PER_MINUTE = 100_000  # the limit has tests of its own; these write often


@pytest.fixture
def trip(alice) -> Conversation:
    return Conversation.objects.create(user=alice, title="Kyoto trip")


def _client(user, name="trip planner") -> tuple[Client, str]:
    token, secret = create_token(user, name)
    return Client(HTTP_AUTHORIZATION=f"Bearer {secret}"), clients.token_client(token.pk)


def _put(api: Client, conversation: Conversation, key: str, value):
    return api.put(f"{BASE.format(conversation.pk)}/{key}", {"value": value}, content_type="application/json")


def test_a_program_sets_lists_reads_and_removes_entries(alice, trip):
    api, key = _client(alice)
    assert api.get(BASE.format(trip.pk)).json() == {"entries": []}
    assert _put(api, trip, "destination", "京都").status_code == 200
    dates = {"from": "2025-12-30", "to": "2026-01-03"}
    written = _put(api, trip, "dates", dates).json()
    assert (written["key"], written["value"], written["by"]) == ("dates", dates, key)  # names the program

    listed = api.get(BASE.format(trip.pk)).json()["entries"]
    assert [(e["key"], e["value"]) for e in listed] == [("destination", "京都"), ("dates", dates)]
    assert api.get(f"{BASE.format(trip.pk)}/destination").json()["value"] == "京都"
    assert api.delete(f"{BASE.format(trip.pk)}/destination").status_code == 204
    assert api.get(f"{BASE.format(trip.pk)}/destination").status_code == 404
    assert _put(api, trip, "dates", None).status_code == 204  # null removes
    assert api.get(BASE.format(trip.pk)).json() == {"entries": []}


def test_clear_removes_every_entry(alice, trip):
    api, _ = _client(alice)
    _put(api, trip, "task", "book a flight")
    _put(api, trip, "people", 2)
    assert api.delete(BASE.format(trip.pk)).status_code == 204
    assert store.entries(alice.pk, store.chat_session(trip.pk)) == []


def test_another_users_chat_is_a_404_and_theirs_stays_theirs(alice, bob, trip):
    alices, _ = _client(alice)
    bobs, _ = _client(bob, "bob's script")
    _put(alices, trip, "destination", "Kyoto")
    for answer in (
        bobs.get(BASE.format(trip.pk)),
        bobs.get(f"{BASE.format(trip.pk)}/destination"),
        _put(bobs, trip, "destination", "Oslo"),
        bobs.delete(f"{BASE.format(trip.pk)}/destination"),
        bobs.delete(BASE.format(trip.pk)),
    ):
        assert answer.status_code == 404
    assert [e.value for e in store.entries(alice.pk, store.chat_session(trip.pk))] == ["Kyoto"]


def test_entries_expire_after_the_ttl(alice, trip, settings):
    settings.WORKING_MEMORY_TTL_HOURS = 1 / 3600  # one second
    api, _ = _client(alice)
    _put(api, trip, "destination", "Kyoto")
    assert len(api.get(BASE.format(trip.pk)).json()["entries"]) == 1
    time.sleep(2.2)
    assert api.get(BASE.format(trip.pk)).json() == {"entries": []}


def test_a_rewrite_restarts_the_entrys_clock(alice, trip, settings):
    settings.WORKING_MEMORY_TTL_HOURS = 2 / 3600
    api, _ = _client(alice)
    _put(api, trip, "destination", "Kyoto")
    _put(api, trip, "budget", "2000 EUR")
    time.sleep(1.2)
    _put(api, trip, "destination", "Osaka")  # written again: two more seconds
    time.sleep(1.3)
    assert [(e["key"], e["value"]) for e in api.get(BASE.format(trip.pk)).json()["entries"]] == [
        ("destination", "Osaka")
    ]


@pytest.mark.parametrize(
    ("key", "value", "field", "words"),
    [
        ("a" * 65, "x", "key", "1 to 64"),
        (" leading", "x", "key", "1 to 64"),
        ("\u0085notes", "x", "key", "1 to 64"),  # a space to Python, not to a JSON Schema regex: refused by both
        ("no\u0090tes", "x", "key", "1 to 64"),  # a C1 control character
        ("notes", "x" * 5000, "value", "bytes of JSON per entry"),
    ],
)
def test_bad_input_is_a_422_naming_the_field(alice, trip, key, value, field, words):
    api, _ = _client(alice)
    answer = _put(api, trip, key, value)
    assert answer.status_code == 422
    assert answer.json()["field"] == field and words in answer.json()["detail"]


def test_a_full_chat_says_so_and_keeps_what_it_had(alice, trip, settings):
    settings.WORKING_MEMORY_MAX_ENTRIES = 2
    api, _ = _client(alice)
    _put(api, trip, "destination", "Kyoto")
    _put(api, trip, "people", 2)
    answer = _put(api, trip, "budget", "2000 EUR")
    assert answer.status_code == 422 and "at most 2 entries" in answer.json()["detail"]
    assert _put(api, trip, "people", 3).status_code == 200  # changing one is no new entry
    assert [e.key for e in store.entries(alice.pk, store.chat_session(trip.pk))] == ["destination", "people"]


def test_with_redis_down_it_answers_503_with_a_sentence(alice, trip, monkeypatch):
    api, _ = _client(alice)
    monkeypatch.setattr(store, "_client", redis.Redis(port=1, socket_timeout=0.2, socket_connect_timeout=0.2))
    for answer in (api.get(BASE.format(trip.pk)), _put(api, trip, "destination", "Kyoto")):
        assert answer.status_code == 503
        assert answer.json()["detail"] == "working memory is not available right now"


def test_a_read_only_view_is_in_the_schema(alice, alice_client):
    paths = alice_client.get("/api/openapi.json").json()["paths"]
    assert set(paths["/api/conversations/{conversation_id}/working-memory/{key}"]) == {"get", "put", "delete"}
    assert set(paths["/api/conversations/{conversation_id}/working-memory"]) == {"get", "delete"}
