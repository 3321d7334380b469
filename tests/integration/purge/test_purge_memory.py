"""Delete forever: after a purge the memory's text is nowhere in the database, and the audit only says
that a purge happened."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Citation, Conversation, Message
from memoryapp.engine.errors import MemoryNotFound
from memoryapp.engine.memories import purge, write
from memoryapp.models import EventAction, Memory, MemoryEvent
from memoryapp.pipeline.models import ExtractionRun, FailedTask, MemorySuggestion
from tests.support.leaks import columns_holding

pytestmark = pytest.mark.django_db

SECRET = "Zanzibar-quokka-8812 我的秘密"
NEEDLES = ("zanzibar", "quokka", "秘密")  # the tsvector and jieba tokens hold the words apart


def _secret_everywhere(alice) -> tuple[Memory, Memory]:
    """The secret as a memory with an earlier version, cited in a chat, suggested, quoted by a run's
    error and a failed task, and merged into once (a note quoting the duplicate)."""
    chat = Conversation.objects.create(user=alice, title="holiday")
    said = Message.objects.create(conversation=chat, role="user", content="where should I go?")
    old = write.add_memory(
        alice,
        f"{SECRET} (draft)",
        kind="fact",
        context="I told you about Zanzibar before",
        valid_from=timezone.now() - timedelta(days=2),
        source_conversation_id=chat.pk,
    ).memory
    new = write.edit_memory(old, {"content": SECRET}).memory
    write.add_memory(alice, SECRET.lower(), importance=0.9)  # same words: merged, the note quotes it
    reply = Message.objects.create(conversation=chat, role="assistant", content="Somewhere warm.")
    Citation.objects.create(message=reply, memory=new, score=0.9, rank=1)
    MemorySuggestion.objects.create(
        user=alice,
        conversation=chat,
        message=said,
        content=SECRET,
        kind="fact",
        importance=0.5,
        confidence=0.8,
        status="confirmed",
        memory=new,
    )
    MemorySuggestion.objects.create(
        user=alice, content=f"  {SECRET.upper()} ", kind="fact", importance=0.5, confidence=0.8
    )
    ExtractionRun.objects.create(
        user=alice,
        conversation=chat,
        key="k1",
        last_message_id=said.pk,
        status="failed",
        error=f"bad JSON: {{'content': '{SECRET}'",
    )
    FailedTask.objects.create(
        task_name="tasks.extraction.extract_messages", args=[chat.pk], error=f"ValueError: {SECRET}"
    )
    return old, new


def test_it_leaves_no_copy_of_the_text_anywhere(alice, bob):
    old, new = _secret_everywhere(alice)
    kept = write.add_memory(alice, "Likes green tea").memory
    write.add_memory(bob, "Bob's own memory about quokkas?")  # another user's rows are not touched
    assert len(columns_holding(*NEEDLES)) >= 8  # the fixture really spread it around

    purged = purge.purge_memory(new)

    assert sorted(purged) == sorted([old.pk, new.pk])
    assert columns_holding("zanzibar", "秘密") == []
    assert not Memory.objects.filter(pk__in=purged).exists()
    assert not Citation.objects.filter(memory_id__in=purged).exists()
    assert Memory.objects.filter(pk=kept.pk).exists() and Memory.objects.filter(user=bob).count() == 1
    assert Message.objects.filter(content="Somewhere warm.").exists()  # the chat itself is the user's to delete


def test_it_keeps_only_that_a_purge_happened(alice):
    old, new = _secret_everywhere(alice)

    purge.purge_memory(new)

    events = MemoryEvent.objects.filter(memory_ref__in=[old.pk, new.pk])
    assert sorted(events.values_list("memory_ref", "action", "actor")) == sorted(
        [(old.pk, EventAction.PURGED, "user"), (new.pk, EventAction.PURGED, "user")]
    )
    assert {(e.before, e.after, e.note) for e in events} == {(None, None, "")}


def test_it_keeps_a_current_memory_that_an_old_version_was_restored_to(alice):
    vim = write.add_memory(alice, "I use vim", valid_from=timezone.now() - timedelta(days=1)).memory
    emacs = write.supersede_memory(vim, "I switched to emacs").memory
    write.revert_memory(emacs)  # vim is current again, emacs deleted

    assert purge.purge_memory(emacs) == [emacs.pk]

    vim.refresh_from_db()
    assert vim.is_current


def test_it_says_not_found_when_purged_twice(alice):
    memory = write.add_memory(alice, "I like jazz").memory
    stale = Memory.objects.get(pk=memory.pk)
    purge.purge_memory(memory)
    with pytest.raises(MemoryNotFound):
        purge.purge_memory(stale)


def test_it_purges_every_memory_of_the_user_and_nothing_of_others(alice, bob):
    _secret_everywhere(alice)
    gone = write.add_memory(alice, "Lives in Lisbon").memory
    write.delete_memory(gone)
    bobs = write.add_memory(bob, "Bob lives in Oslo").memory

    count = purge.purge_all(alice)

    assert count == 3
    assert columns_holding("zanzibar", "秘密", "lisbon") == []
    assert not Memory.objects.filter(user=alice).exists()
    assert not MemorySuggestion.objects.filter(user=alice).exists()
    assert set(MemoryEvent.objects.filter(user=alice).values_list("action", flat=True)) == {EventAction.PURGED}
    assert Memory.objects.filter(pk=bobs.pk).exists()


def test_it_takes_the_chats_own_quotes_of_the_memory_with_it(alice, alice_client, use_offline_llm):
    """ "What do you remember about me?" answers with the memories word for word: once a memory is deleted
    forever, that answer no longer holds its text, and the rest of the answer stays."""
    doomed = write.add_memory(alice, "I hide my spare key under the Zanzibar flowerpot").memory
    write.add_memory(alice, "I like green tea", kind="preference")
    chat = Conversation.objects.create(user=alice)
    response = alice_client.post(
        f"/api/conversations/{chat.pk}/messages",
        {"content": "What do you remember about me?"},
        content_type="application/json",
    )
    assert response.status_code == 201 and "Zanzibar" in response.json()["reply"]["content"]

    purge.purge_memory(doomed)

    answer = Message.objects.get(conversation=chat, role="assistant").content
    assert "zanzibar" not in answer.lower() and "I like green tea" in answer
    assert columns_holding("zanzibar") == []
