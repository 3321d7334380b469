"""The MCP tool `learn_from_conversation`, with the SDK's own client against a Daphne with no model (the
embedded default): another assistant's turns learnt as the chat learns them, dated, idempotent by key,
scoped to the token's user, bad arguments answered in one sentence."""

from __future__ import annotations

import pytest

from memoryapp.api.auth import create_token
from memoryapp.models import Memory
from tests.support.servers import offline_server  # noqa: F401  (a fixture)

from .client import data, error, session

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TURNS = [
    {"role": "user", "content": "I moved to Berlin.", "created_at": "2025-06-01T10:00:00Z"},
    {"role": "assistant", "content": "Welcome to Berlin!", "created_at": "2025-06-01T10:00:03Z"},
    {"role": "user", "content": "我对花生过敏。", "created_at": "2025-06-02T09:00:00+08:00"},
]


def test_an_assistant_hands_over_its_turns_and_they_are_learnt_dated(offline_server, alice, bob):
    token = create_token(alice, "claude")[1]

    async def work(client):
        learnt = data(
            await client.call_tool(
                "learn_from_conversation", {"messages": TURNS, "source": "claude", "idempotency_key": "c-1"}
            )
        )
        again = data(await client.call_tool("learn_from_conversation", {"messages": TURNS, "idempotency_key": "c-1"}))
        older = data(
            await client.call_tool(
                "learn_from_conversation",
                {"messages": [{"role": "user", "content": "I live in Paris.", "created_at": "2023-03-01T10:00:00Z"}]},
            )
        )
        then = data(
            await client.call_tool("search_memories", {"query": "where do I live?", "at": "2024-01-01T00:00:00Z"})
        )
        return learnt, again, older, then

    learnt, again, older, then = session(offline_server.url, token, work)

    assert (learnt["status"], learnt["done"], learnt["total"], learnt["created"]) == ("done", 3, 3, 2), learnt
    assert again == learnt  # the same key: learnt once, the same job
    dated = dict(Memory.objects.filter(pk__in=learnt["memory_ids"]).values_list("content", "valid_from__date"))
    assert {content: str(day) for content, day in dated.items()} == {
        "I moved to Berlin": "2025-06-01",
        "我对花生过敏": "2025-06-02",
    }
    assert older["superseded"] == 1  # older than Berlin: its past, not its replacement
    assert [hit["memory"]["content"] for hit in then["items"]] == ["I live in Paris"]
    assert Memory.objects.get(user=alice, content="I moved to Berlin").valid_until is None

    async def bobs(client):
        return data(await client.call_tool("list_memories", {}))

    assert session(offline_server.url, create_token(bob, "cursor")[1], bobs)["items"] == []


def test_bad_turns_get_one_readable_sentence(offline_server, alice):
    token = create_token(alice, "claude")[1]
    bad_calls = [
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "assistant", "content": "Hi!"}]}, "no message from the user"),
        ({"messages": [{"role": "robot", "content": "beep"}]}, "messages.0.role"),
        ({"messages": [{"role": "user", "content": "hi", "created_at": "yesterday"}]}, "ISO 8601"),
        ({"messages": [{"role": "user", "content": "hi"}] * 501}, "at most 500 messages"),
    ]

    async def work(client):
        return [
            (await client.call_tool("learn_from_conversation", arguments), expected)
            for arguments, expected in bad_calls
        ]

    for answer, expected in session(offline_server.url, token, work):
        message = error(answer)
        assert expected in message and "Traceback" not in message and len(message) < 400, message
    assert not Memory.objects.filter(user=alice).exists()
