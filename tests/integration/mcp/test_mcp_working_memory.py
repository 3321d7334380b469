"""The working-memory tools: an assistant keeps the task in progress beside a chat of the user's or in a
session of its own naming, reads it back and clears it; another user's chat is "not found"."""

from __future__ import annotations

import pytest

from conversations.models import Conversation
from memoryapp.api.auth import create_token
from memoryapp.engine.chat_state import store

from .client import data, error, session

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_chat_and_a_named_session_keep_their_own_entries(app_server, alice, bob):
    trip = Conversation.objects.create(user=alice, title="Kyoto")
    bobs = Conversation.objects.create(user=bob, title="Bob's")
    token, secret = create_token(alice, "Claude Desktop")

    async def work(client):
        chat = {"conversation_id": trip.pk}
        own = {"session_id": "flight-search-42"}
        await client.call_tool("set_working_memory", {**chat, "key": "destination", "value": "京都"})
        await client.call_tool("set_working_memory", {**chat, "key": "dates", "value": {"from": "2025-12-30"}})
        await client.call_tool("set_working_memory", {**own, "key": "airline", "value": "ANA"})
        in_chat = data(await client.call_tool("get_working_memory", chat))
        in_session = data(await client.call_tool("get_working_memory", own))
        removed = data(await client.call_tool("clear_working_memory", {**chat, "key": "dates"}))
        after = data(await client.call_tool("get_working_memory", chat))
        cleared = data(await client.call_tool("clear_working_memory", own))
        both = error(await client.call_tool("get_working_memory", {**chat, **own}))
        neither = error(await client.call_tool("get_working_memory", {}))
        others = error(await client.call_tool("get_working_memory", {"conversation_id": bobs.pk}))
        bad = error(await client.call_tool("set_working_memory", {**own, "key": "x" * 80, "value": 1}))
        return in_chat, in_session, removed, after, cleared, both, neither, others, bad

    in_chat, in_session, removed, after, cleared, both, neither, others, bad = session(app_server.url, secret, work)

    assert [(e["key"], e["value"]) for e in in_chat["entries"]] == [
        ("destination", "京都"),
        ("dates", {"from": "2025-12-30"}),
    ]
    assert in_chat["entries"][0]["by"] == f"token:{token.pk}"  # the panel can say which program wrote it
    assert [(e["key"], e["value"]) for e in in_session["entries"]] == [("airline", "ANA")]  # apart from the chat
    assert removed == {"removed": 1} and [e["key"] for e in after["entries"]] == ["destination"]
    assert cleared == {"removed": 1} and store.entries(alice.pk, store.program_session("flight-search-42")) == []
    assert "not both" in both and "not both" in neither
    assert others.endswith(f": conversation {bobs.pk} not found")  # as if it never existed
    assert "1 to 64" in bad
    assert store.entries(bob.pk, store.chat_session(bobs.pk)) == []
