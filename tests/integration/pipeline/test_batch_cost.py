"""What a 5-turn batch costs against the scripted model server: model calls and seconds (docs/pipeline.md)."""

from __future__ import annotations

import statistics

import pytest

from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.engine.llm.decisions import DECIDE_MARKER
from memoryapp.engine.memories import write
from tasks.extraction import extract_messages

from .conftest import candidates, chat, decisions

pytestmark = pytest.mark.django_db

BATCHES = 5


def test_it_spends_at_most_two_model_calls_per_five_turn_batch(alice, llm_server, use_scripted_llm):
    write.add_memory(alice, "I like Python for scripting", kind="preference")
    seconds, calls = [], []
    for b in range(BATCHES):
        turns = [f"I like language number {b}{t} for scripting" for t in range(5)]
        conversation, ids = chat(alice, *turns)  # 5 user turns, 10 messages
        llm_server.script(EXTRACT_MARKER, candidates(*[(t, "preference") for t in turns[:3]]))
        llm_server.script(DECIDE_MARKER, decisions(("ADD", None), ("ADD", None), ("ADD", None)))
        before = len(llm_server.chat_requests())
        result = extract_messages.apply(args=[conversation.pk, ids]).get()
        assert result["status"] == "done" and result["applied"] == {"ADD": 3}
        calls.append(len(llm_server.chat_requests()) - before)
        seconds.append(result["seconds"])

    assert max(calls) == 2
    print(
        f"\n[pipeline] {BATCHES} five-turn batches: model calls {calls}, seconds median "
        f"{statistics.median(seconds):.3f} max {max(seconds):.3f} (first includes loading the embedder)"
    )
