"""Consolidation: at most one episode memory per conversation window ("[2026-01-03 18:00] We decided ...").

An episode is written only when the window says something the typed memories learnt from the same chat
do not: a plan discussed, a decision, an event (engine/llm/episodes.py, episode_rules.py without a
model). A short chat that only yielded typed memories, or nothing, leaves none; its run is still kept,
so the window is not asked about again.

A conversation is cut into windows of 30 messages. A full window is summarised as soon as it exists;
the last, partial one when the conversation ends (`ended_at` set). The ConsolidationRun keyed by the
window's first message makes a second pass a no-op, and is written in the episode's transaction.
With auto-extract off the episode is not written: it waits as a MemorySuggestion, like every other
memory a chat yields, and confirming it writes it (engine/learning/extraction.py: confirm_suggestion).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from conversations.models import Conversation, Message, Role
from memoryapp.models import Actor, Memory, MemoryKind, MemorySettings, MemorySource
from memoryapp.pipeline.models import ConsolidationRun, ExtractionRun, MemorySuggestion, RunStatus

from .. import jobs
from ..llm import CONFIGURED, ModelChoice, resolve
from ..llm.candidates import extract_candidates
from ..llm.episodes import summarise_episode
from ..memories import write
from ..sensitive import contains_sensitive

if TYPE_CHECKING:
    from memoryapp.providers.llm.base import LLMProvider

log = logging.getLogger(__name__)

EPISODE_WINDOW = 30  # messages per episode
EPISODE_IMPORTANCE = 0.5
EPISODE_CONFIDENCE = 0.8
RECENT_DAYS = 7  # `due_conversations` looks at conversations touched this recently


@dataclass(frozen=True)
class Episode:
    first_message_id: int
    last_message_id: int
    memory_id: int | None  # None: nothing worth remembering (no user turn, empty summary), or suggested
    suggestion_id: int | None = None  # auto-extract is off: the episode waits for the user's confirmation


def windows(conversation: Conversation) -> list[list[Message]]:
    """The windows ready to be summarised: every full one, and the last partial one once it ended."""
    messages = list(conversation.messages.order_by("created_at", "id"))
    chunks = [messages[i : i + EPISODE_WINDOW] for i in range(0, len(messages), EPISODE_WINDOW)]
    if chunks and len(chunks[-1]) < EPISODE_WINDOW and conversation.ended_at is None:
        chunks.pop()
    return chunks


def pending_windows(conversation: Conversation) -> list[list[Message]]:
    done = set(ConsolidationRun.objects.filter(conversation=conversation).values_list("first_message_id", flat=True))
    return [w for w in windows(conversation) if w[0].pk not in done]


def consolidate(conversation: Conversation, *, llm: ModelChoice = CONFIGURED) -> list[Episode]:
    """Write the episodes this conversation is due; returns those written now. `llm`: the model (default:
    the configured one; None: no model, the rules)."""
    if conversation.temporary:
        return []
    prefs = MemorySettings.objects.get_or_create(user_id=conversation.user_id)[0]
    if not prefs.memory_enabled:
        return []
    llm = resolve(llm)
    written = []
    for window in pending_windows(conversation):
        episode = _consolidate_window(conversation, window, llm, prefs)
        if episode is not None:
            written.append(episode)
    return written


def _consolidate_window(
    conversation: Conversation, window: list[Message], llm: LLMProvider | None, prefs: MemorySettings
) -> Episode | None:
    calls_before = getattr(llm, "calls", 0)
    said = [{"role": m.role, "content": m.content} for m in window if m.memory_command is None]  # no memory commands
    summary = episode_summary(said, llm, learnt_from_chat(conversation, said, llm)) if said else ""
    calls = getattr(llm, "calls", 0) - calls_before
    first, last = window[0], window[-1]
    suggestion = None
    try:
        with transaction.atomic():
            run = ConsolidationRun.objects.create(
                conversation=conversation, first_message_id=first.pk, last_message_id=last.pk, llm_calls=calls
            )
            if summary and any(m.role == Role.USER for m in window):
                source = next((m for m in reversed(window) if m.role == Role.USER), last)
                episode: dict[str, Any] = {
                    "kind": "episode",
                    "importance": EPISODE_IMPORTANCE,
                    "confidence": EPISODE_CONFIDENCE,
                    "valid_from": first.created_at,
                }
                content = episode_content(first.created_at, summary)
                if prefs.auto_extract:
                    run.memory = write.add_memory(
                        conversation.user_id,
                        content,
                        **episode,
                        source=MemorySource.EXTRACTED,
                        source_conversation_id=conversation.pk,
                        source_message_id=source.pk,
                        actor=Actor.EXTRACTOR,
                    ).memory
                    run.save(update_fields=["memory"])
                else:
                    suggestion = MemorySuggestion.objects.create(
                        user_id=conversation.user_id,
                        conversation=conversation,
                        message=source,
                        content=content,
                        **episode,
                    )
    except IntegrityError:  # another worker wrote this window's episode first
        return None
    return Episode(first.pk, last.pk, run.memory_id, suggestion.pk if suggestion else None)


def episode_summary(said: list[dict], llm: LLMProvider | None, learnt: list[str]) -> str:
    """What a window settled or told beyond the typed memories `learnt` from it, in whole sentences; ""
    when nothing (or when a model's summary repeats a secret: never a memory)."""
    summary = " ".join(summarise_episode(said, llm, learnt).split())
    return "" if contains_sensitive(summary) else summary


def episode_content(began: datetime, summary: str) -> str:
    """An episode memory's words: "[2026-01-03 18:00] We decided …", stamped with when the window began."""
    return f"[{_stamp(began)}] {summary}"


def waits_for_extraction(conversation: Conversation, *, llm: ModelChoice = CONFIGURED) -> bool:
    """Whether the chat's episode should wait: a model writes it from the typed memories learnt from the
    chat, and some of its user messages are still being learnt from (a run queued or running, or turns
    after the last run, whose extraction the chat's end has queued beside this job). With no model the
    rules type the window themselves (`learnt_from_chat`): nothing to wait for. The job asks this and
    retries a few times; it consolidates anyway once its retries are spent."""
    windows = pending_windows(conversation)
    if not windows or resolve(llm) is None:
        return False
    runs = ExtractionRun.objects.filter(conversation=conversation)
    if runs.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exists():
        return True
    covered = runs.aggregate(last=Max("last_message_id"))["last"] or 0
    return conversation.messages.filter(
        role=Role.USER, memory_command__isnull=True, id__gt=covered, id__lte=windows[-1][-1].pk
    ).exists()


def learnt_from_chat(conversation: Conversation, said: list[dict], llm: LLMProvider | None) -> list[str]:
    """What the typed memories of this chat say: those written from it (and those waiting as suggestions),
    and, with no model, what the rules would type from these messages: extraction may not have run yet
    (a chat's last window is extracted and consolidated by jobs queued together), and the rules are
    cheap and decide the same way every time."""
    stored = (
        Memory.objects.filter(user_id=conversation.user_id, source_conversation=conversation)
        .exclude(kind=MemoryKind.EPISODE)
        .values_list("content", flat=True)
    )
    waiting = (
        MemorySuggestion.objects.filter(user_id=conversation.user_id, conversation=conversation)
        .exclude(kind=MemoryKind.EPISODE)
        .values_list("content", flat=True)
    )
    learnt = [*stored, *waiting]
    if llm is None:
        learnt += [candidate.content for candidate in extract_candidates(said, None).candidates]
    return list(dict.fromkeys(learnt))


def _stamp(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")


def due_conversations(now: datetime | None = None) -> list[int]:
    """Recently active, kept conversations that have a window waiting for its episode."""
    since = (now or timezone.now()) - timedelta(days=RECENT_DAYS)
    due = []
    recent = Q(messages__created_at__gte=since) | Q(ended_at__gte=since)
    for conversation in Conversation.objects.filter(recent, temporary=False).distinct().order_by("id"):
        if pending_windows(conversation):
            due.append(conversation.pk)
    return due


def queue_due() -> int:
    """The sweep (beat, every 5 minutes): queue a consolidation for every conversation with a window
    waiting (idempotent per window); returns how many."""
    ids = due_conversations()
    for conversation_id in ids:
        jobs.enqueue(jobs.Job.CONSOLIDATE, conversation_id)
    return len(ids)
