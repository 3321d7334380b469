"""A memory's cues (issue #33 item 1): situations in which it helps, written with it, searched beside its
content (the better of the two), edited, validated like its content, exported and imported."""

from __future__ import annotations

import contextlib
import json

import pytest
from django.test import override_settings

from conversations.models import Conversation
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.errors import MemoryValidationError
from memoryapp.engine.learned.model import rules_only
from memoryapp.engine.memories import imports, listing, transfer, write
from memoryapp.models import Memory

pytestmark = pytest.mark.django_db

DOCKER = (
    "Docker image builds on the office network hang at the package-install step unless HTTPS_PROXY is "
    "set to http://proxy.internal:3128."
)
DOCKER_CUES = ["building or pulling Docker images", "docker compose up", "package installs hang", "构建镜像"]
OTHERS = [
    "Has been vegetarian for eight years",
    "Runs about 40 km a week",
    "The cat Pickles takes methimazole",
    "Prefers answers that lead with the code",
    "Is saving for a house down payment",
    "Writes Go services on PostgreSQL 15, deployed to Kubernetes",
    "Uses Neovim and dislikes VS Code",
    "Always uses git push --force-with-lease",
    "Is on call one week out of four",
    "Standup is at 8:30am Mountain Time",
    "Daughter Nora is allergic to tree nuts",
    "Flies United and takes an aisle seat",
    "Is learning Rust by building a small CLI tool",
    "Drinks coffee only in the morning",
    "Boulders three times a week",
    "Tracks spending in YNAB",
    "在自学中文，目标是去台湾时能自己点菜",
    "对猫过敏",
    "Skis at Arapahoe Basin",
    "Is migrating the tracking database from MySQL to PostgreSQL by the end of Q2",
    "Runs data fixes inside a transaction, rehearsed on a staging snapshot",
]


def _store(user, cues: list[str]) -> Memory:
    # The others with no cues at all (none inferred: tests/integration/engine/test_inferred_cues.py), so
    # what the written cues do is what is measured.
    with override_settings(INFER_CUES=False):
        for content in OTHERS:
            write.add_memory(user, content)
        return write.add_memory(user, DOCKER, kind="lesson", cues=cues).memory


def _handed(user, message: str) -> list[str]:
    """What a chat turn (no model: recall and the relevance model alone) hands the assistant."""
    conversation = Conversation.objects.create(user=user, title="build")
    turn = start_turn(conversation, message, llm=None, enqueue_extraction=lambda *args: None)
    return [item.memory.content for item in turn.recalled]


@pytest.mark.parametrize("decider", ["learned relevance", "fixed gates"])
def test_a_chat_turn_is_handed_the_memory_its_cues_imply(alice, bob, decider):
    """The issue's example: the message says nothing the lesson says (cosine 0.12 to its words); its
    cues are what a build is about. Bob holds the same memories without cues."""
    _store(alice, DOCKER_CUES)
    _store(bob, [])
    message = "anything to set up before I kick off the build?"
    with rules_only() if decider == "fixed gates" else contextlib.nullcontext():
        assert _handed(alice, message)[:1] == [DOCKER]
        assert DOCKER not in _handed(bob, message)


def test_the_memories_page_finds_a_memory_by_a_word_only_its_cues_hold(alice):
    memory = _store(alice, DOCKER_CUES)
    found = listing.list_memories(alice, listing.MemoryFilter(q="compose")).memories
    assert [m.pk for m in found][:1] == [memory.pk]


def test_edited_cues_are_what_recall_matches(alice):
    memory = _store(alice, DOCKER_CUES)
    result = write.edit_memory(memory, {"cues": ["before a deploy to staging"]})
    assert result.action == "updated" and result.memory.cues == ["before a deploy to staging"]
    assert listing.list_memories(alice, listing.MemoryFilter(q="staging")).memories[:1] == [memory]
    assert memory not in listing.list_memories(alice, listing.MemoryFilter(q="compose")).memories
    history = memory.events.order_by("-id").first()
    assert history.before["cues"] == DOCKER_CUES and history.after["cues"] == ["before a deploy to staging"]


def test_rewording_a_memory_keeps_its_cues(alice):
    memory = _store(alice, DOCKER_CUES)
    new = write.edit_memory(memory, {"content": DOCKER.replace("hang", "stall")}).memory
    assert new.pk != memory.pk and new.cues == DOCKER_CUES and new.cue_embedding is not None


@pytest.mark.parametrize(
    "cues, message",
    [
        (["my password is hunter2"], "cues looks like it holds a password"),
        (["x" * 201], "cues.0"),
        ([f"situation {i}" for i in range(13)], "cues"),
        (["  "], "cues.0"),
    ],
)
def test_bad_cues_are_refused_with_a_reason(alice, cues, message):
    with pytest.raises(MemoryValidationError) as refused:
        write.add_memory(alice, "Likes green tea", cues=cues)
    assert message in refused.value.message or refused.value.field == message
    assert not Memory.objects.filter(user=alice).exists()


def test_cues_travel_with_an_export_into_another_account(alice, bob):
    _store(alice, DOCKER_CUES)
    exported = json.loads(transfer.export_file(alice).body)
    assert next(row for row in exported["memories"] if row["content"] == DOCKER)["cues"] == DOCKER_CUES
    report = imports.import_memories(bob, exported)
    assert report.ok and report.imported == len(OTHERS) + 1
    copy = Memory.objects.get(user=bob, content=DOCKER)
    assert copy.cues == DOCKER_CUES and copy.cue_embedding is not None and copy.cues_written_at is not None
    assert Memory.objects.get(user=bob, content=OTHERS[0]).cues_written_at is None  # waits for the cue job
