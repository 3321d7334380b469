"""/api/conversations: the caller's conversations only; a chat turn without streaming."""

from __future__ import annotations

import json

import pytest

from conversations.models import Conversation, Message
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.memories.write import add_memory
from memoryapp.engine.recall import access
from memoryapp.models import Memory
from tests.support.llm_server import Fail

pytestmark = pytest.mark.django_db


def _post(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")


def test_it_creates_lists_renames_and_deletes_a_conversation(alice_client, alice, use_scripted_llm):
    created = _post(alice_client, "/api/conversations", {"title": "Trip"})
    assert created.status_code == 201
    conversation_id = created.json()["id"]
    assert alice_client.get("/api/conversations").json() == []  # nothing said yet: not listed
    Message.objects.create(conversation_id=conversation_id, role="user", content="hi")
    assert [c["title"] for c in alice_client.get("/api/conversations?q=tri").json()] == ["Trip"]

    renamed = alice_client.patch(
        f"/api/conversations/{conversation_id}", json.dumps({"title": "Japan trip"}), content_type="application/json"
    )
    assert renamed.status_code == 200 and renamed.json()["title"] == "Japan trip"
    assert alice_client.delete(f"/api/conversations/{conversation_id}").status_code == 204
    assert not Conversation.objects.filter(pk=conversation_id).exists()


def test_it_answers_a_message_with_its_citations(alice_client, alice, llm_server, use_scripted_llm):
    memory = add_memory(alice, "I am vegetarian", kind="fact").memory
    conversation = Conversation.objects.create(user=alice)
    llm_server.script(None, "Try a vegetable curry [1].")

    response = _post(
        alice_client, f"/api/conversations/{conversation.pk}/messages", {"content": "Suggest a dinner. I am vegetarian"}
    )

    assert response.status_code == 201
    body = response.json()
    assert body["reply"]["content"] == "Try a vegetable curry [1]."
    assert body["reply"]["citations"][0]["memory_id"] == memory.pk
    assert body["reply"]["used"] == [memory.pk] and body["reply"]["offered"][0]["used"] is True
    assert "[1] I am vegetarian" in llm_server.chat_requests()[-1]["messages"][0]["content"]
    messages = alice_client.get(f"/api/conversations/{conversation.pk}/messages").json()
    assert [m["role"] for m in messages] == ["user", "assistant"]


def test_a_reply_cites_only_what_it_marked(alice_client, alice, llm_server, use_scripted_llm):
    """The model is handed both memories, numbered; it marks the second and invents a third: the reply
    cites the second, keeps the first as offered, and the invented number is gone from what it says."""
    stored = [
        add_memory(alice, "I am vegetarian", kind="fact").memory,
        add_memory(alice, "I cook dinner for my vegetarian kids on weekdays", kind="fact").memory,
    ]
    conversation = Conversation.objects.create(user=alice)
    llm_server.script(None, "Cook lentils tonight [2] [7].", "Any pasta works.")
    access.wait_for_pending_notes()
    access.flush_access()  # start from an empty batch (a batch left by an earlier run may land on these ids)
    before = {m.pk: m.access_count for m in Memory.objects.filter(pk__in=[m.pk for m in stored])}

    first = _post(
        alice_client,
        f"/api/conversations/{conversation.pk}/messages",
        {"content": "What should I cook for my vegetarian dinner tonight?"},
    ).json()["reply"]
    second = _post(
        alice_client,
        f"/api/conversations/{conversation.pk}/messages",
        {"content": "And what should I cook for my vegetarian lunch tomorrow?"},
    ).json()["reply"]

    offered = {c["rank"]: c for c in first["offered"]}
    assert len(offered) == 2 and first["content"] == "Cook lentils tonight [2]."
    assert first["used"] == [offered[2]["memory_id"]] and [c["rank"] for c in first["citations"]] == [2]
    assert offered[1]["used"] is False
    # A model that marks nothing cites nothing, though it was handed memories.
    assert second["offered"] and second["used"] == [] and second["citations"] == []
    # The earlier reply's marker numbered its own list: the next prompt carries the reply without it.
    assert "Cook lentils tonight." in json.dumps(llm_server.chat_requests()[-1]["messages"])
    # What keeps mattering is what a reply used: only the marked memory's use is counted.
    access.wait_for_pending_notes()
    access.flush_access()
    counts = {m.pk: m.access_count - before[m.pk] for m in Memory.objects.filter(pk__in=[m.pk for m in stored])}
    assert counts[offered[2]["memory_id"]] == 1 and counts[offered[1]["memory_id"]] == 0


def test_it_keeps_the_message_when_the_model_fails_and_retries_it(alice_client, alice, llm_server, use_scripted_llm):
    conversation = Conversation.objects.create(user=alice)
    llm_server.script(None, Fail(500), Fail(500))  # the SDK retries once

    failed = _post(alice_client, f"/api/conversations/{conversation.pk}/messages", {"content": "are you there"})

    assert failed.status_code == 502 and "HTTP 500" in failed.json()["detail"]
    assert list(conversation.messages.values_list("content", flat=True)) == ["are you there"]
    llm_server.script(None, "Yes, back now.")
    retried = alice_client.post(f"/api/conversations/{conversation.pk}/retry")
    assert retried.status_code == 201 and retried.json()["reply"]["content"] == "Yes, back now."


def test_it_refuses_an_anonymous_caller(client):
    assert client.get("/api/conversations").status_code == 401


def test_with_citations_hidden_a_reply_shows_neither_chips_nor_markers(
    alice_client, alice, llm_server, use_scripted_llm
):
    from django.urls import reverse

    from memoryapp.models import MemorySettings

    add_memory(alice, "I am vegetarian", kind="fact")
    MemorySettings.objects.update_or_create(user=alice, defaults={"show_citations": False})
    conversation = Conversation.objects.create(user=alice)
    llm_server.script(None, "Try a vegetable curry [1].")
    _post(alice_client, f"/api/conversations/{conversation.pk}/messages", {"content": "Dinner? I am vegetarian"})

    page = alice_client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert "Try a vegetable curry." in page and "[1]" not in page and "chip" not in page


def test_a_secret_said_over_the_api_is_answered_with_why_it_is_not_kept(alice_client, alice, use_scripted_llm):
    conversation = Conversation.objects.create(user=alice)

    secret = _post(
        alice_client,
        f"/api/conversations/{conversation.pk}/messages",
        {"content": "remember that my passport number is E12345678"},
    ).json()
    plain = _post(alice_client, f"/api/conversations/{conversation.pk}/messages", {"content": "Thanks!"}).json()

    assert secret["not_kept"].startswith("I won't keep a passport number")
    assert plain["not_kept"] is None


def test_a_memory_handed_as_one_line_is_cited_when_marked_and_only_it(
    alice_client, alice, llm_server, use_scripted_llm
):
    """Past the relevance model's few picks a model sees each memory as one numbered line; marking that
    number cites the whole memory, and nothing it did not mark becomes a chip."""
    for text in ("I am vegetarian", "I cook dinner for my two kids on weekdays", "My daughter is allergic to peanuts"):
        add_memory(alice, text, kind="fact")
    long = add_memory(
        alice,
        "We only have a tiny two-burner induction stove in the rented flat, no oven and no microwave, since the "
        "landlord took them out last spring",
        kind="fact",
    ).memory
    conversation = Conversation.objects.create(user=alice)
    # The list the turn will hand, to script a reply that marks the long memory's number.
    turn = start_turn(conversation, "What should I cook for dinner tonight for my family?", for_model=True)
    numbers = {item.memory.pk: rank for rank, item in enumerate(turn.recalled, start=1)}
    line = next(line for line in turn.prompt[0]["content"].splitlines() if line.startswith(f"[{numbers[long.pk]}]"))
    assert line.endswith("…") and "landlord" not in line
    Message.objects.filter(conversation=conversation).delete()

    llm_server.script(None, f"A one-pan stir fry suits your stove [{numbers[long.pk]}].")
    reply = _post(
        alice_client,
        f"/api/conversations/{conversation.pk}/messages",
        {"content": "What should I cook for dinner tonight for my family?"},
    ).json()["reply"]
    assert reply["used"] == [long.pk]
    assert [c["memory_id"] for c in reply["citations"]] == [long.pk]
    assert len(reply["offered"]) >= 4
