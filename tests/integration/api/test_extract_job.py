"""`POST /api/memories/extract`: another program's conversation, learnt by a real Celery worker with no
model (the embedded default) exactly as a chat's turns are, each turn dated; polled at its Location;
idempotent by key; only its owner can see it; bad input answered 422 naming the field."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.test import Client

from memoryapp.api.auth import create_token
from memoryapp.engine import jobs
from memoryapp.models import Memory
from memoryapp.pipeline.models import LearnJob
from tasks.learning import learn_conversation
from tests.integration.api.conftest import sent_to_the_worker_without_a_model

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(worker_without_a_model) -> Iterator[None]:
    with sent_to_the_worker_without_a_model(jobs.Job.LEARN, learn_conversation):
        yield


def _client(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {create_token(user, 'extract test')[1]}")


def _extract(client: Client, body: dict):
    return client.post("/api/memories/extract", body, content_type="application/json")


def _search(client: Client, body: dict) -> dict:
    return client.post("/api/memories/search", body, content_type="application/json").json()


def _done(client: Client, location: str, timeout: float = 90) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(location)
        assert answer.status_code == 200, answer.content
        if answer.json()["status"] in ("done", "failed", "skipped"):
            return answer.json()
        time.sleep(0.1)
    raise AssertionError(f"the learning job did not finish: {answer.json()}")


def _turn(content: str, when: str | None = None, role: str = "user") -> dict:
    return {"role": role, "content": content, **({"created_at": when} if when else {})}


def test_it_learns_english_and_chinese_turns_dated_when_they_were_said(alice, bob, worker):
    api = _client(alice)
    response = _extract(
        api,
        {
            "messages": [
                _turn("I'm allergic to peanuts.", "2024-03-05T08:00:00Z"),
                _turn("Noted, I'll keep that in mind.", "2024-03-05T08:00:05Z", role="assistant"),
                _turn("我每天早上喝绿茶。", "2024-07-01T12:30:00+08:00"),
            ],
            "source": "support-bot",
        },
    )

    assert response.status_code == 202, response.content
    job = response.json()
    assert response["Location"] == f"/api/memories/extract/{job['id']}"
    assert (job["status"], job["total"], job["done"], job["source"]) == ("queued", 3, 0, "support-bot")
    job = _done(api, response["Location"])
    assert (job["status"], job["done"], job["created"], job["superseded"], job["error"]) == ("done", 3, 2, 0, "")
    learnt = {m["id"]: m for m in api.get("/api/memories").json()["items"]}
    assert set(job["memory_ids"]) == set(learnt)
    dated = {m["content"]: m["valid_from"] for m in learnt.values()}
    assert dated == {"I'm allergic to peanuts": "2024-03-05T08:00:00Z", "我每天早上喝绿茶": "2024-07-01T04:30:00Z"}
    assert Memory.objects.filter(user=alice, source="extracted").count() == 2
    # Another user's job is missing, like one that never existed.
    assert _client(bob).get(response["Location"]).status_code == 404
    assert api.get("/api/memories/extract/999999").status_code == 404


def test_a_move_arriving_before_the_older_home_stays_now_and_the_older_is_the_past(alice, worker):
    api = _client(alice)
    moved = _extract(api, {"messages": [_turn("I moved to Berlin.", "2025-06-01T10:00:00Z")]})
    assert _done(api, moved["Location"])["created"] == 1
    lived = _extract(api, {"messages": [_turn("I live in Paris.", "2023-03-01T10:00:00Z")]})
    assert _done(api, lived["Location"])["superseded"] == 1

    now = _search(api, {"query": "where do I live?"})
    assert [hit["memory"]["content"] for hit in now["items"]] == ["I moved to Berlin"]
    then = _search(api, {"query": "where do I live?", "at": "2024-01-01T00:00:00Z"})
    assert [hit["memory"]["content"] for hit in then["items"]] == ["I live in Paris"]
    assert then["items"][0]["memory"]["replaced_by"]["content"] == "I moved to Berlin"


def test_the_same_key_twice_learns_once_and_answers_the_same_job(alice, bob, worker):
    api = _client(alice)
    body = {"messages": [_turn("I run every Sunday morning.")], "idempotency_key": "chat-812"}
    first = _extract(api, body)
    job = _done(api, first["Location"])
    again = _extract(api, body)

    assert again.status_code == 202 and again.json()["id"] == job["id"] and again["Location"] == first["Location"]
    assert Memory.objects.filter(user=alice).count() == 1 and LearnJob.objects.filter(user=alice).count() == 1
    other = _extract(api, {**body, "messages": [_turn("I swim on Saturdays.")]})
    assert other.status_code == 409 and "idempotency_key" in other.json()["detail"]
    # A key is the user's own: bob's same key is a job of his.
    assert _extract(_client(bob), body).json()["id"] != job["id"]


@pytest.mark.parametrize(
    "body, field, words",
    [
        ({"messages": []}, "messages", "at least 1"),
        ({"messages": [_turn("Sure!", role="assistant")]}, "messages", "no message from the user"),
        ({"messages": [_turn("hi", role="system")]}, "messages.0.role", "user, assistant"),
        ({"messages": [_turn("hi", "last Tuesday")]}, "messages.0.created_at", "ISO 8601"),
        ({"messages": [_turn("hi", "2999-01-01T00:00:00Z")]}, "messages.0.created_at", "future"),
        ({"messages": [_turn("   ")]}, "messages.0.content", "content is empty"),
        ({"messages": [_turn("x" * 20_001)]}, "messages.0.content", "20000"),
        ({"messages": [_turn("hi")] * 501}, "messages", "at most 500 messages"),
        ({"messages": [{"role": "user"}]}, "messages.0.content", "required"),
        ({"messages": [_turn("hi")], "colour": "red"}, "colour", "not permitted"),
        ({"messages": "hi"}, "messages", "list"),
    ],
)
def test_bad_input_is_a_422_naming_the_field_and_queues_nothing(alice, body, field, words):
    response = _extract(_client(alice), body)

    assert response.status_code == 422, response.content
    error = response.json()
    assert error["field"] == field and words in error["detail"], error
    assert not LearnJob.objects.filter(user=alice).exists()
