"""Episode memories: one per 30-message window and one when a conversation ends, never twice."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.utils import timezone

from memoryapp.engine.learning.consolidation import consolidate
from memoryapp.engine.llm.episodes import SUMMARISE_MARKER
from memoryapp.models import Memory, MemorySettings
from memoryapp.pipeline.models import MemorySuggestion

from .conftest import chat

pytestmark = pytest.mark.django_db


def _episodes(user) -> list[str]:
    return list(Memory.objects.filter(user=user, kind="episode").order_by("id").values_list("content", flat=True))


def test_it_writes_an_episode_at_thirty_messages_and_only_once(alice, llm_server, scripted_llm):
    conversation, _ids = chat(alice, *[f"Let us talk about the interview, part {i}" for i in range(16)])  # 32
    llm_server.script(SUMMARISE_MARKER, "talked about the interview and a game")

    first = consolidate(conversation, llm=scripted_llm)
    again = consolidate(conversation, llm=scripted_llm)

    stamp = timezone.localtime(conversation.messages.first().created_at).strftime("%Y-%m-%d %H:%M")
    assert _episodes(alice) == [f"[{stamp}] talked about the interview and a game"]
    assert len(first) == 1 and again == [] and len(llm_server.chat_requests()) == 1
    episode = Memory.objects.get(kind="episode")
    assert episode.source_conversation_id == conversation.pk and episode.source == "extracted"


def test_it_writes_the_last_window_when_the_conversation_ends(alice, llm_server, use_scripted_llm):
    conversation, _ids = chat(alice, "I have a job interview tomorrow", "Any advice on nerves?")
    assert consolidate(conversation) == []  # short and still open: nothing yet

    conversation.ended_at = timezone.now()
    conversation.save(update_fields=["ended_at"])
    llm_server.script(SUMMARISE_MARKER, "talked about tomorrow's job interview")
    call_command("consolidate", "--conversation", str(conversation.pk), stdout=open("/dev/null", "w"))

    assert len(_episodes(alice)) == 1 and _episodes(alice)[0].endswith("talked about tomorrow's job interview")


def test_it_skips_temporary_conversations(alice):
    conversation, _ids = chat(alice, *["I like tea"] * 16, temporary=True)
    assert consolidate(conversation) == [] and _episodes(alice) == []


def test_it_keeps_the_episode_as_a_suggestion_when_auto_learn_is_off(alice, alice_client, llm_server, use_scripted_llm):
    """ "When off, new memories wait for your confirmation": the episode too, by `manage.py consolidate`
    as by the engine the chat-end job and beat call; confirming it on the memories page writes it."""
    MemorySettings.objects.update_or_create(user=alice, defaults={"auto_extract": False})
    long, _ids = chat(alice, *[f"Let us plan the trip to Kyoto, part {i}" for i in range(16)])  # a full window
    ended, _ids = chat(alice, "I have a job interview tomorrow", "Any advice on nerves?")
    ended.ended_at = timezone.now()
    ended.save(update_fields=["ended_at"])
    llm_server.script(SUMMARISE_MARKER, "talked about the trip to Kyoto")
    llm_server.script(SUMMARISE_MARKER, "talked about tomorrow's job interview")

    assert [e.memory_id for e in consolidate(long)] == [None]
    call_command("consolidate", "--conversation", str(ended.pk), stdout=open("/dev/null", "w"))
    assert consolidate(long) == [] and consolidate(ended) == []  # each window once, suggested or not

    assert _episodes(alice) == []
    waiting = list(MemorySuggestion.objects.filter(user=alice, status="pending").order_by("id"))
    assert [s.kind for s in waiting] == ["episode", "episode"]
    assert waiting[1].content.endswith("talked about tomorrow's job interview")
    page = alice_client.get("/settings/memories").content.decode()
    assert "talked about the trip to Kyoto" in page and "talked about tomorrow&#x27;s job interview" in page

    response = alice_client.post(f"/settings/memories/suggestions/{waiting[0].pk}/confirm")
    assert response.status_code == 302
    episode = Memory.objects.get(user=alice, kind="episode")
    assert episode.content == waiting[0].content and episode.source_conversation_id == long.pk
    assert episode.valid_from == long.messages.order_by("created_at", "id").first().created_at


def test_with_a_model_the_episode_waits_for_the_chats_extraction(alice, scripted_llm):
    """The model is told what the chat's typed memories hold, so its episode job waits (retrying) while
    the chat's last turns are still being learnt from; with no model the rules type them themselves."""
    from memoryapp.engine.learning import extraction
    from memoryapp.engine.learning.consolidation import waits_for_extraction

    conversation, ids = chat(alice, "I'm allergic to peanuts", "We decided to cook Thai on Friday")
    conversation.ended_at = timezone.now()
    conversation.save(update_fields=["ended_at"])
    assert waits_for_extraction(conversation, llm=scripted_llm)  # the chat's end queued its extraction
    assert not waits_for_extraction(conversation, llm=None)

    run, _created = extraction.queue_run(conversation, ids)
    assert waits_for_extraction(conversation, llm=scripted_llm)  # queued, not yet run
    run.status = "done"
    run.save(update_fields=["status"])
    assert not waits_for_extraction(conversation, llm=scripted_llm)
