"""POST /api/conversations/{id}/end: a program ends its chat now, as leaving it on the chat page does, and
creating or opening a chat through the API ends none of the caller's others (issue #31, item 7)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from conversations.models import Conversation, Message
from memoryapp.api.auth import create_token
from memoryapp.engine import jobs

pytestmark = pytest.mark.django_db


class Broker:
    """Stands in for the queue: records the FINISH_CHAT jobs sent."""

    name = "test.finish_chat"

    def __init__(self):
        self.sent = []

    def delay(self, *args):
        self.sent.append(args)


@pytest.fixture
def finish_jobs(monkeypatch) -> Broker:
    broker = Broker()
    monkeypatch.setitem(jobs._runners, jobs.Job.FINISH_CHAT, broker)
    return broker


def _program(user):
    """One program of `user`: its own Bearer token, no session."""
    secret = create_token(user, "program")[1]
    http = Client()

    def call(method: str, path: str, body: dict | None = None):
        kwargs = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
        if body is not None:
            kwargs.update(data=json.dumps(body), content_type="application/json")
        return getattr(http, method.lower())(f"/api{path}", **kwargs)

    return call


@pytest.fixture
def program(alice):
    return _program(alice)


@pytest.fixture
def second_program(alice):
    return _program(alice)


def _said(conversation_id: int, *turns: str) -> None:
    for text in turns:
        Message.objects.create(conversation_id=conversation_id, role="user", content=text)
        Message.objects.create(conversation_id=conversation_id, role="assistant", content="Noted.")


def test_ending_a_chat_queues_what_it_owes_once_and_a_second_call_says_it_already_ended(
    program, finish_jobs, django_capture_on_commit_callbacks
):
    chat_id = program("POST", "/conversations", {"title": "trip"}).json()["id"]
    _said(chat_id, "I'm allergic to peanuts", "I run every morning at six")

    with django_capture_on_commit_callbacks(execute=True):
        first = program("POST", f"/conversations/{chat_id}/end")
    assert first.status_code == 200
    assert first.json()["outcome"] == "ended" and first.json()["id"] == chat_id
    assert finish_jobs.sent == [(chat_id,)]  # the engine's path: its tail extracted, its episode written

    with django_capture_on_commit_callbacks(execute=True):
        again = program("POST", f"/conversations/{chat_id}/end")
    assert again.status_code == 200
    assert again.json() == {**first.json(), "outcome": "already_ended"}  # the same end, nothing queued again
    assert finish_jobs.sent == [(chat_id,)]
    assert program("GET", f"/conversations/{chat_id}").json()["ended_at"] == first.json()["ended_at"]


def test_a_new_message_reopens_an_ended_chat_and_it_can_end_again(
    program, finish_jobs, use_offline_llm, django_capture_on_commit_callbacks
):
    chat_id = program("POST", "/conversations", {}).json()["id"]
    _said(chat_id, "I'm moving to Lyon next month")
    with django_capture_on_commit_callbacks(execute=True):
        program("POST", f"/conversations/{chat_id}/end")
    assert program("POST", f"/conversations/{chat_id}/messages", {"content": "Actually Marseille"}).status_code == 201
    assert program("GET", f"/conversations/{chat_id}").json()["ended_at"] is None

    with django_capture_on_commit_callbacks(execute=True):
        assert program("POST", f"/conversations/{chat_id}/end").json()["outcome"] == "ended"
    assert finish_jobs.sent == [(chat_id,), (chat_id,)]


def test_a_temporary_chat_is_discarded_without_being_learnt_from(
    program, finish_jobs, django_capture_on_commit_callbacks
):
    chat_id = program("POST", "/conversations", {"temporary": True}).json()["id"]
    _said(chat_id, "my bank PIN is 4821")

    with django_capture_on_commit_callbacks(execute=True):
        ended = program("POST", f"/conversations/{chat_id}/end")
    assert ended.status_code == 200
    assert ended.json() == {"id": chat_id, "outcome": "discarded", "ended_at": None}
    assert finish_jobs.sent == []
    assert not Conversation.objects.filter(pk=chat_id).exists()
    assert not Message.objects.filter(conversation_id=chat_id).exists()
    assert program("POST", f"/conversations/{chat_id}/end").status_code == 404  # gone, as on the page


def test_another_users_chat_or_a_missing_one_answers_404_as_json(
    program, bob, finish_jobs, django_capture_on_commit_callbacks
):
    bobs = Conversation.objects.create(user=bob, title="bob's chat")
    _said(bobs.pk, "I'm bob")
    missing = bobs.pk + 1000

    with django_capture_on_commit_callbacks(execute=True):
        for chat_id in (bobs.pk, missing):
            response = program("POST", f"/conversations/{chat_id}/end")
            assert response.status_code == 404
            assert response["Content-Type"].startswith("application/json") and response.json() == {
                "detail": "Not Found"
            }
    bobs.refresh_from_db()
    assert bobs.ended_at is None and finish_jobs.sent == []


def test_two_programs_of_one_user_never_end_each_others_chats(
    program, second_program, finish_jobs, use_offline_llm, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = program("POST", "/conversations", {}).json()["id"]
        assert (
            program("POST", f"/conversations/{first}/messages", {"content": "I'm allergic to peanuts"}).status_code
            == 201
        )
        scratch = program("POST", "/conversations", {"temporary": True}).json()["id"]
        assert program("POST", f"/conversations/{scratch}/messages", {"content": "just between us"}).status_code == 201

        second = second_program("POST", "/conversations", {}).json()["id"]  # the other program starts one
        assert second_program("GET", f"/conversations/{second}").status_code == 200
        assert (
            second_program("POST", f"/conversations/{second}/messages", {"content": "I like jazz"}).status_code == 201
        )
        assert second_program("GET", "/conversations").status_code == 200

    assert finish_jobs.sent == []
    assert Conversation.objects.get(pk=first).ended_at is None
    assert Conversation.objects.filter(pk=scratch).exists()  # nor is its temporary chat discarded
    assert program("GET", f"/conversations/{first}").json()["ended_at"] is None
