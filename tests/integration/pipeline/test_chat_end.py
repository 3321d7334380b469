"""A chat ends when its user moves to another chat or leaves it idle: its last turns are learnt from and
its last episode written, on the real worker. Short chats (1 and 3 turns) never reach the 5-turn cadence."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Conversation, Message
from memoryapp.api.auth import create_token
from memoryapp.engine.chat import chat_end
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.engine.llm.episodes import SUMMARISE_MARKER
from memoryapp.models import Memory, MemorySettings
from memoryapp.pipeline.models import ExtractionRun, MemorySuggestion
from tasks.chat_end import end_idle_chats, finish_chat
from tasks.extraction import extract_messages

from .conftest import candidates, chat

ENQUEUE_EXTRACTION = extract_messages.delay_on_commit  # as the chat's edges queue extraction

pytestmark = pytest.mark.integration


def _wait_for(what, timeout: float = 90):
    deadline = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < deadline, "the worker did not get there in time"
        time.sleep(0.3)
    return found


def _memories(user, kind: str) -> list[str]:
    return list(Memory.objects.filter(user=user, kind=kind).values_list("content", flat=True))


@pytest.mark.django_db(transaction=True)
def test_a_1_turn_and_a_3_turn_chat_are_learnt_from_once_the_user_moves_on(
    alice, alice_client, celery_worker, session_llm_server
):
    one, _ = chat(alice, "I'm allergic to peanuts, keep that in mind")
    three, _ = chat(
        alice, "I'm training for the Berlin marathon", "I run every morning at six", "My coach is called Anna"
    )

    session_llm_server.script(EXTRACT_MARKER, candidates(("Is allergic to peanuts", "fact")))
    session_llm_server.script(SUMMARISE_MARKER, "talked about a peanut allergy")
    assert alice_client.get(f"/c/{three.pk}/").status_code == 200  # opening the 3-turn chat ends the other
    _wait_for(lambda: _memories(alice, "fact") and _memories(alice, "episode"))
    assert _memories(alice, "fact") == ["Is allergic to peanuts"]
    assert "talked about a peanut allergy" in _memories(alice, "episode")[0]
    # The episode's prompt was shown the memory the chat taught (its extraction went first), to leave it out.
    prompt = " ".join(m["content"] for m in session_llm_server.chat_requests(SUMMARISE_MARKER)[-1]["messages"])
    assert "- Is allergic to peanuts" in prompt

    session_llm_server.script(EXTRACT_MARKER, candidates(("Is training for the Berlin marathon", "goal")))
    session_llm_server.script(SUMMARISE_MARKER, "talked about marathon training")
    assert alice_client.get("/").status_code == 200  # a fresh chat ends the 3-turn one
    _wait_for(lambda: _memories(alice, "goal") and len(_memories(alice, "episode")) == 2)
    assert _memories(alice, "goal") == ["Is training for the Berlin marathon"]
    three.refresh_from_db()
    assert three.ended_at is not None
    memory = Memory.objects.get(user=alice, kind="goal")
    assert memory.source_conversation_id == three.pk

    # Moving around again queues nothing new: the windows are done and the chats stay ended.
    runs = ExtractionRun.objects.count()
    assert alice_client.get(f"/c/{one.pk}/").status_code == 200
    time.sleep(2)
    assert ExtractionRun.objects.count() == runs and len(_memories(alice, "episode")) == 2


@pytest.mark.django_db
def test_only_the_turns_after_the_last_extracted_window_are_left(alice):
    conversation, ids = chat(alice, "one", "two", "three", "four", "five", "six")
    ExtractionRun.objects.create(
        key="k", user=alice, conversation=conversation, message_ids=ids[:10], last_message_id=ids[9]
    )
    assert chat_end.unextracted_windows(conversation) == [ids[10:]]
    Message.objects.filter(pk=ids[10]).delete()  # only the assistant's reply is left: nothing to learn
    assert chat_end.unextracted_windows(conversation) == []


@pytest.mark.django_db
def test_a_chat_idle_past_the_limit_ends_and_a_new_message_reopens_it(alice, settings):
    settings.CHAT_IDLE_MINUTES = 30
    idle, ids = chat(alice, "I'm moving to Lyon next month")
    recent, _ = chat(alice, "What's the weather like?")
    temporary, _ = chat(alice, "secret", temporary=True)
    long_ago = timezone.now() - timedelta(minutes=31)
    Message.objects.filter(conversation__in=[idle, temporary]).update(created_at=long_ago)

    assert chat_end.idle_chats() == [idle.pk]
    assert chat_end.mark_ended(idle.pk) and not chat_end.mark_ended(idle.pk)  # ended once
    assert chat_end.idle_chats() == []

    start_turn(
        Conversation.objects.get(pk=idle.pk), "Actually it's Marseille, not Lyon", enqueue_extraction=ENQUEUE_EXTRACTION
    )
    idle.refresh_from_db()
    assert idle.ended_at is None  # it goes on, and will end again
    assert recent.pk not in chat_end.idle_chats()


@pytest.mark.django_db
def test_nothing_is_queued_for_a_temporary_chat_or_a_user_whose_memory_is_off(alice):
    temporary, _ = chat(alice, "don't keep this", temporary=True)
    assert finish_chat(temporary.pk) == 0 and not chat_end.mark_ended(temporary.pk)
    MemorySettings.objects.update_or_create(user=alice, defaults={"memory_enabled": False})
    kept, _ = chat(alice, "I like jazz")
    assert finish_chat(kept.pk) == 0


@pytest.mark.django_db(transaction=True)
def test_it_keeps_what_an_idle_chat_yields_as_suggestions_when_auto_learn_is_off(
    alice, alice_client, celery_worker, session_llm_server, settings
):
    """Auto-learn off: the beat ends an idle chat, the worker learns from it, and the fact and the
    "talked about" episode both wait on the memories page; nothing is remembered unasked."""
    settings.CHAT_IDLE_MINUTES = 30
    MemorySettings.objects.update_or_create(user=alice, defaults={"auto_extract": False})
    idle, _ = chat(alice, "I'm allergic to peanuts, keep that in mind")
    Message.objects.filter(conversation=idle).update(created_at=timezone.now() - timedelta(minutes=31))

    session_llm_server.script(EXTRACT_MARKER, candidates(("Is allergic to peanuts", "fact")))
    session_llm_server.script(SUMMARISE_MARKER, "talked about a peanut allergy")
    assert end_idle_chats() == 1
    waiting = _wait_for(
        lambda: (
            len(
                kinds := sorted(
                    MemorySuggestion.objects.filter(user=alice, status="pending").values_list("kind", flat=True)
                )
            )
            == 2
            and kinds
        )
    )
    assert waiting == ["episode", "fact"]
    assert not Memory.objects.filter(user=alice).exists()
    assert "talked about a peanut allergy" in alice_client.get("/settings/memories").content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_2_turn_rest_chat_ended_by_its_program_is_learnt_from_on_the_worker(
    alice, client, celery_worker, session_llm_server, use_offline_llm
):
    """A program chats through the API (two turns, under the 5-turn cadence) and ends the chat: the worker
    learns its fact and writes its episode, without waiting for the idle sweep (issue #31, item 7)."""
    token = create_token(alice, "program")[1]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}", "content_type": "application/json"}
    chat_id = client.post("/api/conversations", "{}", **auth).json()["id"]
    for text in ("I'm allergic to peanuts, keep that in mind", "What should I cook tonight?"):
        assert (
            client.post(f"/api/conversations/{chat_id}/messages", json.dumps({"content": text}), **auth).status_code
            == 201
        )
    assert not ExtractionRun.objects.filter(conversation_id=chat_id).exists()  # the cadence has not come

    session_llm_server.script(EXTRACT_MARKER, candidates(("Is allergic to peanuts", "fact")))
    session_llm_server.script(SUMMARISE_MARKER, "talked about a peanut allergy and dinner")
    ended = client.post(f"/api/conversations/{chat_id}/end", **auth)
    assert ended.status_code == 200 and ended.json()["outcome"] == "ended"

    _wait_for(lambda: _memories(alice, "fact") and _memories(alice, "episode"))
    assert _memories(alice, "fact") == ["Is allergic to peanuts"]
    assert "talked about a peanut allergy and dinner" in _memories(alice, "episode")[0]
    assert Memory.objects.get(user=alice, kind="fact").source_conversation_id == chat_id
    assert client.post(f"/api/conversations/{chat_id}/end", **auth).json()["outcome"] == "already_ended"
