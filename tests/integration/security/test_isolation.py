"""Isolation (issue #9): alice tries every page, API route and task entry point with bob's ids.

Each probe must answer 404 (the same answer as an id that never existed, so nothing tells her
bob's rows exist), and afterwards every one of bob's rows is exactly as it was. The table of
probes is the one in docs/security.md; the websocket probes are in test_isolation_live.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from django.test import Client

from conversations.models import Conversation, Message
from memoryapp.api.auth import create_token
from memoryapp.engine.chat import chat
from memoryapp.engine.memories.write import add_memory, delete_memory, edit_memory
from memoryapp.engine.recall.recall import recall
from memoryapp.models import Memory, MemoryStatus
from memoryapp.pipeline.models import MemorySuggestion
from memoryapp.web.views import CLEARED_KEY
from tasks.extraction import extract_messages
from tasks.forgetting import forget_user

ENQUEUE_EXTRACTION = extract_messages.delay_on_commit  # as the chat's edges queue extraction

pytestmark = pytest.mark.django_db

SECRET = "zebra-secret"  # in every one of bob's texts; must never appear in anything alice gets


@dataclass
class Bobs:
    conversation: Conversation
    message: Message
    memory: Memory  # current version of an edited memory
    older: Memory  # the version it superseded
    deleted: Memory
    suggestion: MemorySuggestion
    token_id: int
    token: str

    def ids(self, own_conversation: int) -> dict[str, int]:
        return {
            "conversation": self.conversation.pk,
            "message": self.message.pk,
            "memory": self.memory.pk,
            "older": self.older.pk,
            "deleted": self.deleted.pk,
            "suggestion": self.suggestion.pk,
            "own": own_conversation,
        }


def snapshot(user) -> dict:
    """Everything of `user`'s that a leak or a write through another account could change."""
    return {
        "memories": sorted(Memory.objects.filter(user=user).values_list("pk", "content", "status", "valid_until")),
        "conversations": sorted(Conversation.objects.filter(user=user).values_list("pk", "title", "ended_at")),
        "messages": Message.objects.filter(conversation__user=user).count(),
        "suggestions": sorted(MemorySuggestion.objects.filter(user=user).values_list("pk", "status")),
        "tokens": sorted(user.api_tokens.values_list("pk", "revoked_at")),
    }


@pytest.fixture
def bobs(bob) -> Bobs:
    conversation = Conversation.objects.create(user=bob, title=f"bob's {SECRET} chat")
    message = Message.objects.create(conversation=conversation, role="user", content=f"My plan is {SECRET}")
    older = add_memory(bob, f"Bob's plan is {SECRET} in March", kind="goal").memory
    memory = edit_memory(older, {"content": f"Bob's plan is {SECRET} in April"}).memory
    deleted = delete_memory(add_memory(bob, f"Bob once liked {SECRET} tea").memory).memory
    suggestion = MemorySuggestion.objects.create(
        user=bob, content=f"Bob likes {SECRET}", kind="preference", importance=0.5, confidence=0.9
    )
    token, secret = create_token(bob, f"bob-{SECRET}-token")
    return Bobs(conversation, message, memory, older, deleted, suggestion, token.pk, secret)


@pytest.fixture
def own_conversation(alice) -> Conversation:
    conversation = Conversation.objects.create(user=alice, title="alice's chat")
    Message.objects.create(conversation=conversation, role="user", content="hello")
    return conversation


@pytest.fixture
def alice_api(client: Client, alice):
    """alice's Bearer token, no session: the API's own way in."""
    secret = create_token(alice, "alice")[1]

    def call(method: str, path: str, body: dict | None = None):
        kwargs = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
        if body is not None:
            kwargs.update(data=json.dumps(body), content_type="application/json")
        return getattr(client, method.lower())(f"/api{path}", **kwargs)

    return call


# (method, path, form body): pages, as alice signed in. {own} is alice's own conversation.
PAGE_PROBES = [
    ("GET", "/c/{conversation}/", None),
    ("POST", "/c/{conversation}/rename/", {"title": "hijacked"}),
    ("POST", "/c/{conversation}/delete/", None),
    ("POST", "/c/{conversation}/messages/{message}/remember/", None),
    ("POST", "/c/{conversation}/memories/{memory}/undo/", None),
    ("POST", "/c/{own}/messages/{message}/remember/", None),
    ("POST", "/c/{own}/memories/{memory}/undo/", None),
    ("POST", "/c/{conversation}/memories/notice/close/", None),
    ("POST", "/c/{conversation}/memories/{memory}/forget/", None),
    ("POST", "/c/{own}/memories/{memory}/forget/", None),
    ("POST", "/c/{own}/memories/{deleted}/restore/", None),
    ("POST", "/c/{own}/memories/{memory}/revert/", None),
    ("GET", "/settings/memories/{memory}/card", None),
    ("GET", "/settings/memories/{memory}/edit", None),
    ("POST", "/settings/memories/{memory}/edit", {"content": "hijacked", "kind": "fact"}),
    ("GET", "/settings/memories/{memory}/history", None),
    ("GET", "/settings/memories/{older}/history", None),
    ("POST", "/settings/memories/{memory}/delete", None),
    ("POST", "/settings/memories/{deleted}/restore", None),
    ("GET", "/settings/memories/{memory}/purge", None),
    ("POST", "/settings/memories/{memory}/purge", None),
    ("POST", "/settings/memories/{deleted}/purge", None),
    ("POST", "/settings/memories/{older}/purge", None),
    ("POST", "/settings/memories/suggestions/{suggestion}/confirm", None),
    ("POST", "/settings/memories/suggestions/{suggestion}/dismiss", None),
]

# (method, path, JSON body): the API, with alice's Bearer token.
API_PROBES = [
    ("GET", "/memories/{memory}", None),
    ("PATCH", "/memories/{memory}", {"content": "hijacked"}),
    ("DELETE", "/memories/{memory}", None),
    ("POST", "/memories/{deleted}/restore", None),
    ("POST", "/memories/{memory}/purge", None),
    ("POST", "/memories/{deleted}/purge", None),
    ("POST", "/memories/{older}/purge", None),
    ("GET", "/memories/{memory}/history", None),
    ("GET", "/memories/{older}", None),
    ("GET", "/conversations/{conversation}", None),
    ("PATCH", "/conversations/{conversation}", {"title": "hijacked"}),
    ("DELETE", "/conversations/{conversation}", None),
    ("GET", "/conversations/{conversation}/messages", None),
    ("POST", "/conversations/{conversation}/messages", {"content": "hello"}),
    ("POST", "/conversations/{conversation}/retry", None),
    ("POST", "/conversations/{conversation}/end", None),
]


def _probe_id(probe) -> str:
    return f"{probe[0]} {probe[1]}"


@pytest.mark.parametrize("method,path,body", PAGE_PROBES, ids=map(_probe_id, PAGE_PROBES))
def test_pages_answer_404_for_bobs_ids_and_change_nothing(
    alice_client, bob, bobs, own_conversation, method, path, body
):
    before = snapshot(bob)
    url = path.format(**bobs.ids(own_conversation.pk))
    response = alice_client.get(url) if method == "GET" else alice_client.post(url, body or {})
    assert response.status_code == 404
    assert SECRET not in response.content.decode()
    assert snapshot(bob) == before


@pytest.mark.parametrize("method,path,body", API_PROBES, ids=map(_probe_id, API_PROBES))
def test_api_answers_404_for_bobs_ids_and_changes_nothing(
    alice_api, bob, bobs, own_conversation, use_scripted_llm, method, path, body
):
    before = snapshot(bob)
    response = alice_api(method, path.format(**bobs.ids(own_conversation.pk)), body)
    assert response.status_code == 404
    assert SECRET not in response.content.decode()
    assert snapshot(bob) == before


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/c/",
        "/c/?q=bob",
        "/settings/",
        "/settings/memories",
        "/settings/memories?q=Bob+plan+zebra",
        "/settings/memories?status=deleted",
        "/settings/memories/export",
        "/settings/memories/export?format=markdown",
    ],
)
def test_pages_that_list_things_show_none_of_bobs(alice_client, bobs, path):
    response = alice_client.get(path)
    assert response.status_code == 200
    assert SECRET not in response.content.decode()


@pytest.mark.parametrize(
    "method,path,body",
    [
        ("GET", "/memories", None),
        ("GET", "/memories?status=deleted", None),
        ("GET", "/memories/stats", None),
        ("POST", "/memories/search", {"query": f"Bob's plan {SECRET}"}),
        ("GET", "/memories/export", None),
        ("GET", "/memories/export?format=markdown", None),
        ("GET", "/conversations", None),
        ("GET", "/conversations?q=bob", None),
    ],
)
def test_api_lists_and_search_show_none_of_bobs(alice_api, bobs, method, path, body):
    response = alice_api(method, path, body)
    assert response.status_code == 200
    assert SECRET not in response.content.decode()


def test_a_token_only_opens_its_owners_data_and_stops_when_revoked(client, alice, bobs):
    add_memory(alice, "Alice drinks green tea")
    as_bob = client.get("/api/memories", HTTP_AUTHORIZATION=f"Bearer {bobs.token}").json()["items"]
    assert [m["content"] for m in as_bob] == [bobs.memory.content]
    bobs_client = Client()
    bobs_client.force_login(bobs.memory.user)
    bobs_client.post("/settings/", {"revoke_token": str(bobs.token_id)})
    assert client.get("/api/memories", HTTP_AUTHORIZATION=f"Bearer {bobs.token}").status_code == 401


def test_revoking_bobs_token_from_alices_settings_does_nothing(alice_client, client, bob, bobs):
    before = snapshot(bob)
    alice_client.post("/settings/", {"revoke_token": str(bobs.token_id)})
    assert snapshot(bob) == before
    assert Client().get("/api/memories", HTTP_AUTHORIZATION=f"Bearer {bobs.token}").status_code == 200


def test_clear_all_and_its_undo_touch_only_alices_memories(alice_client, alice, bob, bobs):
    add_memory(alice, "Alice drinks green tea")
    before = snapshot(bob)
    alice_client.post("/settings/memories/clear")
    assert snapshot(bob) == before
    session = alice_client.session  # a forged undo list naming bob's deleted memory
    session[CLEARED_KEY] = [*session.get(CLEARED_KEY, []), bobs.deleted.pk]
    session.save()
    alice_client.post("/settings/memories/clear/undo")
    assert snapshot(bob) == before
    assert Memory.objects.get(user=alice, content="Alice drinks green tea").status == MemoryStatus.ACTIVE


def test_delete_all_forever_touches_only_alices_memories(alice_client, alice, bob, bobs):
    add_memory(alice, "Alice drinks green tea")
    before = snapshot(bob)
    alice_client.post("/settings/memories/purge")
    assert snapshot(bob) == before
    assert not Memory.objects.filter(user=alice).exists()


def test_the_admin_is_for_staff_only(alice_client):
    for path in ("/admin/", "/admin/memoryapp/memory/", "/admin/pipeline/failedtask/"):
        response = alice_client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_recall_and_the_chat_never_reach_bobs_memories(alice, own_conversation, bobs, llm_server, use_scripted_llm):
    assert recall(alice, f"Bob's plan is {SECRET} in April").items == []
    llm_server.script(None, "I don't know.")
    turn, reply = chat.chat_turn(
        own_conversation, f"What is Bob's plan {SECRET}?", enqueue_extraction=ENQUEUE_EXTRACTION
    )
    system = llm_server.chat_requests()[-1]["messages"][0]["content"]
    assert "<memories>" not in system and reply.citations.count() == 0


def test_tasks_given_bobs_ids_by_alices_conversation_learn_nothing_of_his(alice, bob, bobs, own_conversation):
    before = snapshot(bob)
    extract_messages(own_conversation.pk, [bobs.message.pk])  # offline model: learns from what it is given
    forget_user(alice.pk)
    assert snapshot(bob) == before
    assert not Memory.objects.filter(user=alice, content__icontains=SECRET).exists()


@pytest.mark.parametrize(
    "path", ["/memories/{id}", "/memories/{id}/history", "/conversations/{id}", "/conversations/{id}/messages"]
)
def test_ids_that_cannot_exist_answer_404_not_an_error(alice_api, path):
    for impossible in (0, -1, 2**63, 2**70):
        assert alice_api("GET", path.format(id=impossible)).status_code == 404
