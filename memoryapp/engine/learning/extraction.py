"""Extraction: turn a window of messages into memories, with at most 2 model calls per batch.

`extract` asks the model for candidates, drops sensitive ones, finds each candidate's nearest current
memories (pgvector), asks the model once to decide ADD / UPDATE / BOOST / DELETE / SKIP for all of them,
and applies every decision in one transaction together with the run's status. A crash anywhere leaves
the window unextracted and the run claimable again; a finished window is never applied twice.
With auto-extract off, candidates become MemorySuggestion rows the user confirms or dismisses.

Work is queued through the job seam (engine/jobs.py, `Job.EXTRACT`), on commit; `on_user_turn` takes
its queue as an argument (default: the seam) so benchmarks can run turns with none. The task
(tasks/extraction.py) loads the window by ids and calls `run_window`, as `manage.py extract` does.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.utils import timezone
from pgvector.django import CosineDistance

from conversations.models import Conversation, Message, Role
from memoryapp.lib.sentences import without_questions
from memoryapp.models import Actor, EventAction, Memory, MemoryKind, MemorySettings, MemorySource, MemoryStatus
from memoryapp.pipeline.models import ExtractionRun, MemorySuggestion, RunStatus, SuggestionStatus
from memoryapp.providers.llm import ProviderError

from .. import jobs
from ..errors import MemoryConflict
from ..learned.slots import slots_of
from ..llm import CONFIGURED, ModelChoice, resolve
from ..llm.candidates import extract_candidates
from ..llm.decisions import decide
from ..llm.schemas import CandidateWithNeighbours, DecisionAction, Neighbour, normalise_content
from ..memories import conflicts, write
from ..memories.validation import MAX_CONTEXT_LENGTH
from ..sensitive import contains_sensitive
from .anchoring import anchored_start

if TYPE_CHECKING:
    from memoryapp.models import ChangeQuestion
    from memoryapp.providers.embeddings.base import Embedder
    from memoryapp.providers.llm.base import LLMProvider

    from ..llm.schemas import Candidate, Decision

log = logging.getLogger(__name__)

WINDOW = 10  # messages per batch
NEIGHBOURS = 3  # existing memories shown to the model per candidate
NEIGHBOUR_MIN_SIMILARITY = 0.3  # farther than this is not worth a decision, unless it fills the same slot
SLOT_NEIGHBOURS = 2  # memories of the candidate's slot shown beside the nearest, however far
SLOT_SEARCH = 50  # how far down the nearest they are looked for
STALE_AFTER = timedelta(minutes=15)  # a "running" run older than this belonged to a worker that died
STALLED_AFTER = timedelta(minutes=10)  # a run still "queued" this long lost its message (broker down)
SWEEP_MAX_ATTEMPTS = 8  # a failed run is re-queued by the sweep until it has been tried this often
SAME_TIME_AFTER = timedelta(microseconds=1)  # a change said at the very time of what it replaces starts just after


# Queues the extraction of one window: enqueue(conversation_id, message_ids).
EnqueueExtraction = Callable[[int, list[int]], object]


@dataclass
class ExtractionOutcome:
    run: ExtractionRun
    ran: bool  # False: the window was already extracted (or is being extracted) elsewhere
    applied: dict[str, int] = field(default_factory=dict)
    memory_ids: list[int] = field(default_factory=list)


def window_key(conversation_id: int, message_ids: list[int]) -> str:
    digest = hashlib.sha256(",".join(map(str, sorted(message_ids))).encode()).hexdigest()[:32]
    return f"{conversation_id}:{digest}"


def last_window(conversation_id: int, size: int = WINDOW) -> list[int]:
    ids = Message.objects.filter(conversation_id=conversation_id).order_by("-created_at", "-id")
    return sorted(ids.values_list("id", flat=True)[:size])


def queue_run(conversation: Conversation, message_ids: list[int]) -> tuple[ExtractionRun, bool]:
    """The run row for this window, created if new; True when it was created now."""
    key = window_key(conversation.pk, message_ids)
    try:
        with transaction.atomic():
            run, created = ExtractionRun.objects.get_or_create(
                key=key,
                defaults={
                    "user_id": conversation.user_id,
                    "conversation": conversation,
                    "message_ids": sorted(message_ids),
                    "last_message_id": max(message_ids),
                },
            )
    except IntegrityError:  # a concurrent turn created it first
        return ExtractionRun.objects.get(key=key), False
    return run, created


def on_user_turn(
    conversation: Conversation, enqueue: EnqueueExtraction | None = None, prefs: MemorySettings | None = None
) -> bool:
    """Call after saving a user message: every N user turns, queue extraction of the last 10 messages
    through `enqueue` (default: the job seam, which queues on commit: the worker must see the committed
    message). `prefs`: the user's settings when the caller has them already."""
    if conversation.temporary:
        return False
    prefs = prefs or MemorySettings.objects.get_or_create(user_id=conversation.user_id)[0]
    if not prefs.memory_enabled:
        return False
    since = ExtractionRun.objects.filter(conversation=conversation).aggregate(last=Max("last_message_id"))["last"]
    turns = Message.objects.filter(conversation=conversation, role=Role.USER, id__gt=since or 0).count()
    if turns < max(1, prefs.extract_every_n_turns):
        return False
    ids = last_window(conversation.pk)
    run, created = queue_run(conversation, ids)
    if not created:
        return False
    (enqueue or jobs.enqueuer(jobs.Job.EXTRACT))(conversation.pk, ids)
    return True


def stalled_runs(now=None, limit: int = 200) -> list[ExtractionRun]:
    """Runs no worker will finish on its own: queued while the broker was down, claimed by a worker
    that died, or failed (model down past the task's own retries) with attempts left."""
    now = now or timezone.now()
    stalled = (
        Q(status=RunStatus.QUEUED, created_at__lt=now - STALLED_AFTER)
        | Q(status=RunStatus.RUNNING, started_at__lt=now - STALE_AFTER)
        | Q(status=RunStatus.FAILED, attempts__lt=SWEEP_MAX_ATTEMPTS, finished_at__lt=now - STALLED_AFTER)
    )
    return list(ExtractionRun.objects.filter(stalled).order_by("created_at")[:limit])


class RunTakenOver(Exception):
    """Another attempt claimed the run while this one was working; this one must not apply anything."""


def claim(run: ExtractionRun, owner: str = "") -> bool:
    """Take the run for this worker; only one worker wins, and a finished run is never taken again.

    `owner` is the task id. A running claim is taken over when it is stale, or when `owner` already holds
    it: the broker redelivers an unacknowledged task (acks_late) only after its worker died, with the
    same id, and waiting STALE_AFTER for it would leave that redelivery nothing to do.
    """
    now = timezone.now()
    claimable = Q(status__in=[RunStatus.QUEUED, RunStatus.FAILED]) | Q(
        status=RunStatus.RUNNING, started_at__lt=now - STALE_AFTER
    )
    if owner:
        claimable |= Q(status=RunStatus.RUNNING, claimed_by=owner)
    taken = ExtractionRun.objects.filter(claimable, pk=run.pk).update(
        status=RunStatus.RUNNING, started_at=now, attempts=F("attempts") + 1, error="", claimed_by=owner
    )
    run.refresh_from_db()
    return taken == 1


def fail(run: ExtractionRun, error: str) -> None:
    """Mark this attempt failed, unless another attempt has taken the run over meanwhile."""
    ExtractionRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING, attempts=run.attempts).update(
        status=RunStatus.FAILED, error=error[:5000], finished_at=timezone.now()
    )


def run_window(run: ExtractionRun, owner: str = "") -> tuple[ExtractionRun, bool]:
    """Claim `run` and extract it; returns the run and whether this call ran it (False: it was done
    already, or another worker holds it). Any failure marks the run failed before it propagates, so a
    run never stays "running" because its attempt died; the task and `manage.py extract` both call this.
    `owner`: the task id (see `claim`)."""
    if not claim(run, owner=owner):
        return run, False
    try:
        return extract(run).run, True
    except RunTakenOver:
        run.refresh_from_db()
        return run, False  # the attempt that took over applies the batch
    except (ProviderError, MemoryConflict) as exc:
        fail(run, str(exc))
        raise
    except Exception as exc:
        fail(run, f"{type(exc).__name__}: {exc}")
        raise


def requeue_stalled() -> int:
    """The sweep (beat, every 10 minutes): queue the stalled runs again; returns how many. Safe to
    repeat: a run that another worker holds or has finished is not claimed twice."""
    runs = stalled_runs()
    for run in runs:
        jobs.enqueue(jobs.Job.EXTRACT, run.conversation_id, run.message_ids)
    if runs:
        log.info("re-queued %d stalled extraction runs", len(runs))
    return len(runs)


def extract(
    run: ExtractionRun, *, llm: ModelChoice = CONFIGURED, embedder: Embedder | None = None
) -> ExtractionOutcome:
    """Extract one claimed run's window. Raises ProviderError (and friends); the caller records failures.
    `llm`: the model (default: the configured one; None: no model, the rules); `embedder`: default the configured one."""
    llm = resolve(llm)
    started, calls_before = time.monotonic(), getattr(llm, "calls", 0)
    conversation = run.conversation
    prefs = MemorySettings.objects.get_or_create(user_id=run.user_id)[0]
    # Turns about memory itself ("forget that I live in Berlin", the listing that answers "what do you
    # remember?") are never learnt from.
    messages = list(
        Message.objects.filter(pk__in=run.message_ids, conversation=conversation, memory_command__isnull=True)
    )
    if conversation.temporary or not prefs.memory_enabled or not messages:
        return _finish(run, RunStatus.SKIPPED, started, 0, {})

    candidates = learn_candidates(messages, llm)
    if not candidates:
        return _finish(run, RunStatus.DONE, started, getattr(llm, "calls", 0) - calls_before, {})
    if not prefs.auto_extract:
        return _suggest(run, messages, candidates, started, getattr(llm, "calls", 0) - calls_before)

    vectors, decisions = decide_candidates(run.user_id, candidates, llm, embedder)
    calls = getattr(llm, "calls", 0) - calls_before
    with transaction.atomic():  # all or nothing, the run's status included
        # Still ours? A worker that outlived its claim (a redelivery took it over) must not apply twice.
        if (
            not ExtractionRun.objects.select_for_update()
            .filter(pk=run.pk, status=RunStatus.RUNNING, attempts=run.attempts)
            .exists()
        ):
            raise RunTakenOver(f"extraction run {run.pk} was taken over by another attempt")
        learnt = apply_decisions(run.user_id, run.conversation_id, decisions, candidates, vectors, messages)
        outcome = _finish(run, RunStatus.DONE, started, calls, learnt.applied, len(candidates))
    outcome.memory_ids = learnt.memory_ids
    return outcome


@dataclass
class Learnt:
    """What one window's decisions did: each action's count, the memories they wrote or touched, and how
    many were new memories, replacements (of an older one, or as the past version of a newer one), and
    questions left for the user."""

    applied: dict[str, int] = field(default_factory=dict)
    memory_ids: list[int] = field(default_factory=list)
    written: list[int] = field(default_factory=list)  # new rows only: created, new and past versions
    created: int = 0
    superseded: int = 0
    asked: int = 0


def learn_candidates(messages: list[Message], llm: LLMProvider | None) -> list[Candidate]:
    """What the window's turns say worth remembering (one model call, or the learned default), secrets and
    repeats dropped."""
    result = extract_candidates([{"role": m.role, "content": m.content} for m in messages], llm)
    return clean_candidates(result.candidates)


def decide_candidates(
    user_id: int, candidates: list[Candidate], llm: LLMProvider | None, embedder: Embedder | None = None
) -> tuple[list[list[float]], list[Decision]]:
    """Each candidate's vector and what to do with it against its nearest memories (one model call, or
    the learned default); checked: a hallucinated id never reaches the write path."""
    from memoryapp.providers.embeddings import get_embedder

    vectors = (embedder or get_embedder()).embed([c.content for c in candidates])
    items = [
        CandidateWithNeighbours(candidate=c, neighbours=nearest_memories(user_id, v, c.content))
        for c, v in zip(candidates, vectors)
    ]
    return vectors, decide(items, llm).decisions


def apply_decisions(
    user_id: int,
    conversation_id: int | None,
    decisions: list[Decision],
    candidates: list[Candidate],
    vectors: list[list[float]],
    messages: list[Message],
    *,
    dated: bool = False,
) -> Learnt:
    """Apply a window's decisions; call inside the caller's transaction. `dated`: the turns carry the
    times they were said (another program's history, which may arrive in any order): a memory starts when
    it was said, and a statement older than the memory it would replace becomes its past version."""
    learnt = Learnt()
    for decision in decisions:
        i = decision.candidate_index
        result = _apply(
            user_id, conversation_id, decision.action, decision.target_id, candidates[i], vectors[i], messages, dated
        )
        memory = result.memory if result is not None else None
        if decision.action is DecisionAction.ADD and decision.ask_about is not None and memory is not None:
            learnt.asked += ask_about(user_id, decision.ask_about, memory, dated=dated) is not None
        learnt.applied[decision.action.value] = learnt.applied.get(decision.action.value, 0) + 1
        if memory is not None:
            learnt.memory_ids.append(memory.pk)
        if result is not None and result.action == EventAction.CREATED:
            learnt.created += 1
            learnt.written.append(result.memory.pk)
        elif result is not None and result.action == EventAction.SUPERSEDED:
            learnt.superseded += 1
            learnt.written.append(result.memory.pk)
    return learnt


def clean_candidates(candidates: list[Candidate]) -> list[Candidate]:
    """Drop secrets (whatever the model says), questions (a memory holds what the user said, not asked) and
    repeats within the batch."""
    kept, seen = [], set()
    for candidate in candidates:
        content = without_questions(candidate.content)
        if not content:
            continue
        if content != candidate.content:
            candidate = candidate.model_copy(update={"content": content})
        key = normalise_content(candidate.content)
        if key in seen or contains_sensitive(candidate.content):
            continue
        seen.add(key)
        kept.append(candidate)
    return kept


def nearest_memories(user_id: int, vector: list[float], content: str = "") -> list[Neighbour]:
    """The memories a decision about `content` sees: the NEIGHBOURS nearest in meaning, and the nearest
    SLOT_NEIGHBOURS more that fill the same slot (where it lives, works...), however far their words are
    ("我们搬到重庆了" and "Lives in Chengdu" share few)."""
    nearest = list(
        Memory.objects.filter(user_id=user_id, status=MemoryStatus.ACTIVE, valid_until__isnull=True)
        .exclude(embedding__isnull=True)
        .exclude(kind="episode")
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")[:SLOT_SEARCH]
    )
    shown = [m for m in nearest[:NEIGHBOURS] if 1 - m.distance >= NEIGHBOUR_MIN_SIMILARITY]
    slots = slots_of(content)
    shown += [m for m in nearest if m not in shown and slots & slots_of(m.content)][:SLOT_NEIGHBOURS]
    return [
        Neighbour(id=m.pk, content=m.content, kind=MemoryKind(m.kind), similarity=round(1 - m.distance, 4))
        for m in shown
    ]


def source_message(candidate: Candidate, messages: list[Message]) -> Message:
    """The user message that said it, when the words are there; else the window's last user message."""
    users = [m for m in messages if m.role == Role.USER] or messages
    key = normalise_content(candidate.content)
    return next((m for m in users if key and key in normalise_content(m.content)), users[-1])


def learnt_from(message: Message | None) -> str:
    """The words the memory was learnt from, kept (searched, never shown) as its context; none when
    they hold something that must never be stored (a password beside the preference)."""
    if message is None or contains_sensitive(message.content):
        return ""
    return message.content[:MAX_CONTEXT_LENGTH]


def _apply(
    user_id: int,
    conversation_id: int | None,
    action: DecisionAction,
    target_id: int | None,
    candidate: Candidate,
    vector: list[float],
    messages: list[Message],
    dated: bool = False,
) -> write.WriteResult | None:
    said = source_message(candidate, messages)
    source: dict[str, Any] = {
        "source": MemorySource.EXTRACTED,
        "source_conversation_id": said.conversation_id or conversation_id,  # kept history: each its own chat
        "source_message_id": said.pk,
        "context": learnt_from(said),
    }
    details: dict[str, Any] = {
        "kind": candidate.kind.value,
        "importance": candidate.importance,
        "confidence": candidate.confidence,
        "cues": [cue for cue in candidate.cues if not contains_sensitive(cue)],
    }
    # Dated turns: a memory is true from when it was said (or the past time its words name).
    said_start = (anchored_start(candidate.content, said.created_at) or said.created_at) if dated else None
    if action is DecisionAction.ADD:
        return write.add_memory(
            user_id,
            candidate.content,
            **details,
            **source,
            actor=Actor.EXTRACTOR,
            embedding=vector,
            valid_from=said_start if dated else anchored_start(candidate.content, said.created_at),
        )
    if action is DecisionAction.SKIP:
        return None
    assert target_id is not None  # decisions.py: every action but ADD and SKIP names its target
    target = _now_version(Memory.objects.get(pk=target_id, user_id=user_id))  # scoped: never another user's
    if target is None:  # deleted by an earlier decision of the window: a new value is a new memory
        if action is not DecisionAction.UPDATE:
            return None
        return _apply(user_id, conversation_id, DecisionAction.ADD, None, candidate, vector, messages, dated)
    if action is DecisionAction.UPDATE:
        if said_start is not None and said_start < target.valid_from:
            # Said before the memory it would replace began: it is that memory's past, not its successor.
            del details["cues"]
            return write.add_past_version(
                target, candidate.content, **details, **source, valid_from=said_start, embedding=vector
            )
        if said_start is not None and said_start == target.valid_from:  # said at the same time: after it
            said_start += SAME_TIME_AFTER
        return write.supersede_memory(
            target,
            candidate.content,
            **details,
            **source,
            actor=Actor.EXTRACTOR,
            embedding=vector,
            valid_from=said_start if dated else anchored_start(candidate.content, said.created_at, target),
        )
    if action is DecisionAction.BOOST:
        return write.boost_memory(target, actor=Actor.EXTRACTOR)
    if said_start is not None and said_start < target.valid_from:
        return None  # "not any more", said before the memory began, does not end it
    return write.delete_memory(target, actor=Actor.EXTRACTOR)


def _now_version(memory: Memory) -> Memory | None:
    """The memory as it stands now: the version that replaced it, where an earlier decision of the same
    window (decided against the same neighbours) already did; None where one deleted it."""
    seen = set()
    while not memory.is_current and memory.pk not in seen:
        seen.add(memory.pk)
        newer = memory.replaced_by
        if newer is None:
            return None
        memory = newer
    return memory if memory.is_current else None


def ask_about(user_id: int, older_id: int, newer: Memory, *, dated: bool = False) -> ChangeQuestion | None:
    """The decision was unsure the new memory replaces `older_id`: the user is asked (memories page, API, MCP).
    `dated`: the two are ordered by when they began, not by when they were learnt."""
    older = Memory.objects.filter(pk=older_id, user_id=user_id).first()  # scoped: never another user's memory
    if older is None:
        return None
    if dated and newer.valid_from < older.valid_from:
        older, newer = newer, older
    return conflicts.ask(user_id, older, newer)


def _finish(
    run: ExtractionRun, status: str, started: float, calls: int, applied: dict[str, int], candidates: int = 0
) -> ExtractionOutcome:
    run.status, run.llm_calls, run.applied, run.candidates = status, calls, applied, candidates
    run.seconds, run.finished_at = round(time.monotonic() - started, 3), timezone.now()
    run.save(update_fields=["status", "llm_calls", "applied", "candidates", "seconds", "finished_at"])
    return ExtractionOutcome(run=run, ran=True, applied=applied)


def _suggest(
    run: ExtractionRun, messages: list[Message], candidates: list[Candidate], started: float, calls: int
) -> ExtractionOutcome:
    with transaction.atomic():
        for candidate in candidates:
            MemorySuggestion.objects.create(
                user_id=run.user_id,
                run=run,
                conversation_id=run.conversation_id,
                message=source_message(candidate, messages),
                content=candidate.content,
                kind=candidate.kind.value,
                importance=candidate.importance,
                confidence=candidate.confidence,
            )
        return _finish(run, RunStatus.SUGGESTED, started, calls, {"SUGGESTED": len(candidates)}, len(candidates))


def confirm_suggestion(suggestion: MemorySuggestion, *, actor: str = Actor.USER) -> write.WriteResult:
    """The user keeps a suggested memory: it is added (or merged into the duplicate it matches)."""
    with transaction.atomic():
        suggestion = MemorySuggestion.objects.select_for_update().get(pk=suggestion.pk)
        if suggestion.status != SuggestionStatus.PENDING:
            raise ValueError(f"suggestion {suggestion.pk} was already {suggestion.status}")
        result = write.add_memory(
            suggestion.user_id,
            suggestion.content,
            kind=suggestion.kind,
            importance=suggestion.importance,
            confidence=suggestion.confidence,
            valid_from=suggestion.valid_from,
            source=MemorySource.EXTRACTED,
            source_conversation_id=suggestion.conversation_id,
            source_message_id=suggestion.message_id,
            actor=actor,
            context=learnt_from(suggestion.message),
        )
        suggestion.status, suggestion.memory, suggestion.decided_at = (
            SuggestionStatus.CONFIRMED,
            result.memory,
            timezone.now(),
        )
        suggestion.save(update_fields=["status", "memory", "decided_at"])
        return result


def dismiss_suggestion(suggestion: MemorySuggestion) -> MemorySuggestion:
    MemorySuggestion.objects.filter(pk=suggestion.pk, status=SuggestionStatus.PENDING).update(
        status=SuggestionStatus.DISMISSED, decided_at=timezone.now()
    )
    suggestion.refresh_from_db()
    return suggestion
