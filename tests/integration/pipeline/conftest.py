"""A conversation with messages, and JSON answers for the scripted model."""

from __future__ import annotations

import json

import pytest

from conversations.models import Conversation, Message


def chat(user, *turns: str, temporary: bool = False) -> tuple[Conversation, list[int]]:
    """A conversation whose user turns are `turns`, each followed by a short assistant reply."""
    conversation = Conversation.objects.create(user=user, title="chat", temporary=temporary)
    ids = []
    for text in turns:
        ids.append(Message.objects.create(conversation=conversation, role="user", content=text).pk)
        ids.append(Message.objects.create(conversation=conversation, role="assistant", content="Noted.").pk)
    return conversation, ids


def candidates(*items: tuple[str, str]) -> str:
    return json.dumps(
        {
            "candidates": [
                {"content": content, "kind": kind, "importance": 0.7, "confidence": 0.9} for content, kind in items
            ]
        }
    )


def decisions(*items: tuple[str, int | None]) -> str:
    return json.dumps(
        {
            "decisions": [
                {"candidate_index": i, "action": action, "target_id": target, "reason": "test"}
                for i, (action, target) in enumerate(items)
            ]
        }
    )


@pytest.fixture
def make_chat():
    return chat
