"""Hostile arguments for every tool, schemathesis-style but by hand (one argument at a time, each from a
list of awkward values), sent by bob while alice has a memory: every answer is a result or a readable
error, none is a crash, and nothing of alice's reaches bob or changes."""

from __future__ import annotations

import pytest

from memoryapp.api.auth import create_token
from memoryapp.engine.memories import conflicts
from memoryapp.engine.memories.write import add_memory
from memoryapp.models import Memory, MemoryEvent

from .client import session

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SECRET = "alice's zebra plan"
AWKWARD = [
    None,
    "",
    " ",
    "\x00",
    "x" * 5000,
    "上海",
    "2026-13-45T99:99:99Z",
    -1,
    0,
    2**63,
    2**70,
    1.5,
    True,
    [],
    ["fact"] * 20,
    {},
    {"$ne": None},
    "'; DROP TABLE memoryapp_memory; --",
]


def test_no_argument_crashes_a_tool_or_reaches_another_user(app_server, alice, bob):
    alices = add_memory(alice, f"Remember {SECRET}").memory
    question = conflicts.ask(alice.pk, alices, add_memory(alice, "I live in Leeds").memory)  # bob must not answer it
    alices_events = MemoryEvent.objects.filter(memory_ref=alices.pk).count()
    token = create_token(bob, "fuzz")[1]

    async def work(client):
        tools = (await client.list_tools()).tools
        answers = []
        for tool in tools:
            parameters = tool.input_schema.get("properties", {})
            valid = {
                "query": "zebra",
                "content": "bob's note",
                "memory_id": alices.pk,
                "memories": [{"content": "b"}],
                "messages": [{"role": "user", "content": "bob's note"}],
                "conflict_id": question.pk,
                "answer": "replace",
                "key": "destination",
                "value": "bob's value",
            }
            base = {name: valid[name] for name in tool.input_schema.get("required", [])}
            for name in [*parameters, "unexpected"]:
                for value in [*AWKWARD, alices.pk, question.pk]:
                    result = await client.call_tool(tool.name, {**base, name: value})
                    answers.append((tool.name, name, value, result.is_error, result.content[0].text))
        return answers

    answers = session(app_server.url, token, work)
    assert len(answers) > 500
    for tool, name, value, is_error, text in answers:
        assert text != f"Error executing tool {tool}", (tool, name, value)  # the SDK's word for a crash
        assert "Traceback" not in text and SECRET not in text, (tool, name, value, text)
        if is_error:
            assert 0 < len(text) < 600, (tool, name, value, text)
    alices.refresh_from_db()
    assert alices.content == f"Remember {SECRET}" and alices.status == "active"
    assert MemoryEvent.objects.filter(memory_ref=alices.pk).count() == alices_events  # nothing bob did touched it
    assert not Memory.objects.filter(user=bob, content__contains="zebra plan").exists()
    question.refresh_from_db()
    assert question.status == "open"  # bob cannot answer alice's question
