"""Situations without a model (issue #43 item 1): a memory written with no cues gets the situation bank's
(engine/learned/situations.py), marked inferred; a chat message that only implies it then finds it; a
person's or a model's cues replace them; an export says which were guessed."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import override_settings

from conversations.models import Conversation
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.learning import cues as cue_job
from memoryapp.engine.memories import imports, transfer, write
from memoryapp.engine.recall.recall import recall
from memoryapp.engine.recall.recipes import RECALL_CHAT_CANDIDATES
from memoryapp.models import Memory
from tests.integration.engine.test_cues import OTHERS

pytestmark = pytest.mark.django_db


def _handed(user, message: str) -> list[str]:
    conversation = Conversation.objects.create(user=user)
    turn = start_turn(conversation, message, llm=None, enqueue_extraction=lambda *args: None)
    return [item.memory.content for item in turn.recalled]


def test_a_memory_written_without_cues_gets_inferred_ones(alice):
    memory = write.add_memory(alice, "我老婆不吃香菜").memory
    assert memory.cues_inferred and memory.cues and memory.cue_embedding is not None
    assert memory.cues_written_at is None  # a model, once configured, writes its own over them
    assert not any("香菜" in cue for cue in memory.cues)  # situations, not the memory's words again


def test_cues_a_person_writes_are_theirs(alice):
    memory = write.add_memory(alice, "我老婆不吃香菜", cues=["做饭", "点外卖"]).memory
    assert memory.cues == ["做饭", "点外卖"] and not memory.cues_inferred


# More of a life, for a store where a memory must stand out among its likes.
MORE = [
    "My knee hurts after long runs",
    "我晕船很厉害",
    "I get seasick easily",
    "我膝盖有旧伤，爬楼梯会疼",
    "我对花生过敏",
    "I'm allergic to peanuts",
]


def _store(user, memory: str, infer: bool) -> None:
    with override_settings(INFER_CUES=infer):
        for content in [*OTHERS, *MORE, memory]:
            write.add_memory(user, content)


def test_a_situation_the_memory_never_names_brings_it_to_the_chat(alice, bob):
    """Alice's memories were written as the app writes them; Bob's the same, with INFER_CUES off: only
    the inferred cues bring the memory to the chat turn with no model."""
    memory = "My wife doesn't eat cilantro"
    _store(alice, memory, infer=True)
    _store(bob, memory, infer=False)
    assert memory in _handed(alice, "planning a dinner party menu")
    assert memory not in _handed(bob, "planning a dinner party menu")


def test_a_situation_the_memory_never_names_finds_it_among_the_candidates(alice, bob):
    """In Chinese: among the ten nearest a chat turn weighs (and a model's list starts with), only with
    the inferred cues."""
    memory = "我在备孕"
    _store(alice, memory, infer=True)
    _store(bob, memory, infer=False)

    def candidates(user) -> list[str]:
        found = recall(user, "下午能喝杯咖啡吗", config=RECALL_CHAT_CANDIDATES, record_access=False).items
        return [item.memory.content for item in found]

    assert memory in candidates(alice)
    assert memory not in candidates(bob)


def test_rewording_a_memory_infers_its_cues_again(alice):
    old = write.add_memory(alice, "I get seasick on boats and ferries").memory
    new = write.edit_memory(old, {"content": "My daughter is allergic to peanuts", "cues": list(old.cues)}).memory
    assert new.pk != old.pk and new.cues_inferred and new.cues != old.cues


def test_editing_the_cues_makes_them_the_persons(alice):
    memory = write.add_memory(alice, "我老婆不吃香菜").memory
    edited = write.edit_memory(memory, {"cues": ["买菜", "做饭"]}).memory
    assert edited.cues == ["买菜", "做饭"] and not edited.cues_inferred and edited.cues_written_at is not None


def test_an_export_marks_guessed_cues_and_an_import_guesses_them_again(alice, bob):
    write.add_memory(alice, "我老婆不吃香菜")
    write.add_memory(alice, "Uses a standing desk", cues=["setting up a home office"])
    rows = {row["content"]: row for row in json.loads(transfer.export_file(alice).body)["memories"]}
    assert rows["我老婆不吃香菜"]["cues_inferred"] is True
    assert rows["Uses a standing desk"]["cues_inferred"] is False
    assert imports.import_memories(bob, {"memories": list(rows.values())}).ok
    copy = Memory.objects.get(user=bob, content="我老婆不吃香菜")
    assert copy.cues_inferred and copy.cues_written_at is None
    kept = Memory.objects.get(user=bob, content="Uses a standing desk")
    assert kept.cues == ["setting up a home office"] and not kept.cues_inferred


def test_memories_written_before_the_bank_get_cues_from_manage_py_cues_without_a_model(alice, capsys):
    with override_settings(INFER_CUES=False):
        memory = write.add_memory(alice, "我老婆不吃香菜").memory
    assert memory.cues == [] and not memory.cues_inferred
    call_command("cues")
    memory.refresh_from_db()
    assert memory.cues_inferred and memory.cues and memory.cue_embedding is not None
    assert "cues inferred for 1 memories" in capsys.readouterr().out
    assert cue_job.without_cues(alice.pk).count() == 0
