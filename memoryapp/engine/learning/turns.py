"""Learning from another program's conversation (`POST /api/memories/extract`, the MCP tool
`learn_from_conversation`): its turns are learnt exactly as a chat of the app is.

`queue_learning` keeps the validated turns in a LearnJob (one per idempotency key and user) and asks for
`Job.LEARN` through the engine's seam; `run_learning` (the worker's) learns them window by window with
extraction's own steps (engine/learning/extraction.py: candidates, secrets dropped, decisions against the
nearest memories, changes and questions when unsure) and leaves an episode where a chat's window of 30
messages would (engine/learning/consolidation.py). The turns carry the times they were said: a memory is
true from then, and a statement older than the memory it would replace becomes that memory's past version
(the turns of several calls may arrive in any order). Each window is one transaction with the job's
counters, so a run that stops resumes after the last window learnt, and no window is learnt twice.
`learn_conversation` is the same job run at once, where the caller waits (the MCP tool).
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

from django.db import IntegrityError, transaction
from django.utils import timezone
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator

from conversations.models import MAX_MESSAGE_CHARS, Message, Role
from memoryapp.lib import clients
from memoryapp.models import Actor, Memory, MemoryKind, MemorySettings, MemorySource, user_id_of
from memoryapp.pipeline.models import LearnJob, MemorySuggestion, RunStatus
from memoryapp.providers.llm import ProviderError

from .. import jobs
from ..errors import MemoryConflict
from ..llm import CONFIGURED, ModelChoice, resolve
from ..llm.candidates import extract_candidates
from ..memories import write
from ..memories.validation import DateTimeIn, Text, parse
from . import consolidation, extraction
from .anchoring import anchored_start

if TYPE_CHECKING:
    from memoryapp.providers.embeddings.base import Embedder
    from memoryapp.providers.llm.base import LLMProvider

    from ..llm.schemas import Candidate, Decision

log = logging.getLogger(__name__)

MAX_MESSAGES = 500  # turns per call: a long history is sent in several calls
MAX_LABEL = 200  # characters of `source` and `idempotency_key`
FUTURE_SLACK = timedelta(minutes=5)  # a turn "said" this far ahead of the server's clock is a clock's drift
UNDATED_STEP = timedelta(milliseconds=1)
WINDOWS_PER_EPISODE = consolidation.EPISODE_WINDOW // extraction.WINDOW  # 3 windows of 10: one episode's 30
NOT_QUEUED = "the background queue could not be reached; nothing was learnt"
FAILED = "learning failed (%s); what was learnt before it stays"
MEMORY_OFF = "memory is off in this account's settings, so nothing was learnt"


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("content is empty")
    return text


def _not_ahead(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    if moment > timezone.now() + FUTURE_SLACK:
        raise ValueError("must not be in the future")
    return moment


class TurnInput(BaseModel):
    """One turn: who said it, what, and when (left out: when it arrives)."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: Annotated[
        Text,
        StringConstraints(max_length=MAX_MESSAGE_CHARS),
        AfterValidator(_not_blank),
    ]
    created_at: Annotated[DateTimeIn | None, AfterValidator(_not_ahead)] = None


class ConversationInput(BaseModel):
    """A conversation to learn from, in the order it was held."""

    model_config = ConfigDict(extra="forbid")

    messages: list[TurnInput] = Field(min_length=1)
    source: Annotated[Text, StringConstraints(strip_whitespace=True, max_length=MAX_LABEL)] = ""
    idempotency_key: Annotated[Text, StringConstraints(strip_whitespace=True, max_length=MAX_LABEL)] | None = None

    @field_validator("messages", mode="wrap")
    @classmethod
    def _at_most(cls, value: Any, handler) -> list[TurnInput]:
        if isinstance(value, list) and len(value) > MAX_MESSAGES:  # before each turn is read: say it plainly
            raise ValueError(f"at most {MAX_MESSAGES} messages a call; send a longer conversation in several calls")
        turns = handler(value)
        if not any(turn.role == Role.USER for turn in turns):
            raise ValueError("no message from the user: only the user's own words are learnt from")
        return turns


@dataclass(frozen=True)
class QueuedLearning:
    job: LearnJob
    new: bool  # False: the idempotency key's job, from an earlier call


def queue_learning(user, data: dict | ConversationInput, *, actor: str = Actor.API) -> QueuedLearning:
    """Validate the conversation (MemoryValidationError naming the field) and keep it in a new job, queued
    once the caller's transaction commits; with an idempotency key already used, that key's job (the same
    turns: MemoryConflict when other turns come with it)."""
    job, new = _new_job(user, data, actor)
    if new or _again(job):
        jobs.enqueue(jobs.Job.LEARN, job.pk, if_not_queued=lambda: _not_queued(job.pk))
        job.refresh_from_db()
    return QueuedLearning(job, new)


def learn_conversation(user, data: dict | ConversationInput, *, actor: str = Actor.API, **run) -> LearnJob:
    """The same job, run here and now (or, for a key already used, that key's job as it stands; one that
    failed goes on from where it stopped)."""
    job, new = _new_job(user, data, actor)
    return run_learning(job.pk, **run) if new or _again(job) else job


def _again(job: LearnJob) -> bool:
    """A failed job sent again with its key goes on after the last window it learnt: True when it is queued."""
    return bool(LearnJob.objects.filter(pk=job.pk, status=RunStatus.FAILED).update(status=RunStatus.QUEUED, error=""))


def job_of(user, job_id: int) -> LearnJob | None:
    """The user's job; another user's is missing, like one that never existed."""
    return LearnJob.objects.filter(user_id=user_id_of(user), pk=job_id).first()


def _new_job(user, data: dict | ConversationInput, actor: str) -> tuple[LearnJob, bool]:
    conversation = data if isinstance(data, ConversationInput) else parse(ConversationInput, data)
    received = timezone.now()
    # A turn without its time was said as it arrives, each just after the one before: never at one moment.
    turns = [
        {"role": t.role, "content": t.content, "created_at": (t.created_at or received + n * UNDATED_STEP).isoformat()}
        for n, t in enumerate(conversation.messages)
    ]
    digest = hashlib.sha256(
        json.dumps([[t.role, t.content, t.created_at] for t in conversation.messages], default=str).encode()
    ).hexdigest()
    user_id = user_id_of(user)
    key = conversation.idempotency_key or ""
    if key:
        earlier = _keyed(user_id, key, digest)
        if earlier is not None:
            return earlier, False
    try:
        with transaction.atomic():
            job = LearnJob.objects.create(
                user_id=user_id,
                actor=actor,
                client=clients.current_client(),  # the program that sent it: what it writes names it
                source=conversation.source,
                idempotency_key=key,
                digest=digest,
                messages=turns,
                total=len(turns),
            )
    except IntegrityError:  # the same key, sent twice at once: the first one's job
        earlier = _keyed(user_id, key, digest)
        assert earlier is not None
        return earlier, False
    return job, True


def _keyed(user_id: int, key: str, digest: str) -> LearnJob | None:
    job = LearnJob.objects.filter(user_id=user_id, idempotency_key=key).first()
    if job is not None and job.digest != digest:
        raise MemoryConflict(
            "idempotency_key was already used for other messages; use a new key for a new conversation"
        )
    return job


def _not_queued(job_id: int) -> None:
    LearnJob.objects.filter(pk=job_id, status=RunStatus.QUEUED).update(
        status=RunStatus.FAILED, error=NOT_QUEUED, finished_at=timezone.now()
    )


def run_learning(
    job_id: int, *, llm: ModelChoice = CONFIGURED, embedder: Embedder | None = None, will_retry: bool = False
) -> LearnJob:
    """Learn the job's turns (the worker's `Job.LEARN`), from the first window not learnt yet. A job done
    answers as it is; one whose user turned memory off is skipped; a failure marks the job failed (the
    windows learnt before it stay, and a re-run goes on after them) and is raised. `will_retry`: the caller
    tries again after a passing failure (the model's timeout, memories changed under a window), so the
    job stays running through one."""
    job = LearnJob.objects.filter(pk=job_id).first()
    if job is None or job.status in (RunStatus.DONE, RunStatus.SKIPPED):
        return job  # type: ignore[return-value]  # gone: its user purged everything, or left
    prefs = MemorySettings.objects.get_or_create(user_id=job.user_id)[0]
    if not prefs.memory_enabled:
        return _close(job, RunStatus.SKIPPED, error=MEMORY_OFF)
    LearnJob.objects.filter(pk=job.pk).exclude(status=RunStatus.DONE).update(status=RunStatus.RUNNING, error="")
    try:
        with clients.acting_for(job.client):  # the program that sent the turns, on what they write
            _learn(job, resolve(llm), embedder, prefs)
    except Exception as exc:
        if will_retry and (isinstance(exc, MemoryConflict) or isinstance(exc, ProviderError) and exc.retryable):
            raise
        LearnJob.objects.filter(pk=job.pk).exclude(status=RunStatus.DONE).update(
            status=RunStatus.FAILED, error=FAILED % type(exc).__name__, finished_at=timezone.now()
        )
        raise
    job.refresh_from_db()
    return job


def _turns(job: LearnJob) -> list[Message]:
    """The turns as unsaved messages: extraction reads who said what and when; they are stored nowhere."""
    return [
        Message(role=t["role"], content=t["content"], created_at=datetime.fromisoformat(t["created_at"]))
        for t in job.messages
    ]


def _learn(job: LearnJob, llm: LLMProvider | None, embedder: Embedder | None, prefs: MemorySettings) -> None:
    turns = _turns(job)
    windows = [turns[i : i + extraction.WINDOW] for i in range(0, len(turns), extraction.WINDOW)]
    for index in range(job.windows_done, len(windows)):
        window = windows[index]
        has_user = any(m.role == Role.USER for m in window)
        candidates = extraction.learn_candidates(window, llm) if has_user else []
        vectors: list[list[float]] = []
        decisions: list[Decision] = []
        if candidates and prefs.auto_extract:  # the model calls and the embedding: outside the transaction
            vectors, decisions = extraction.decide_candidates(job.user_id, candidates, llm, embedder)
        last = index == len(windows) - 1
        with transaction.atomic():
            locked = LearnJob.objects.select_for_update().get(pk=job.pk)
            if locked.windows_done != index:  # another run of the job got here first: it goes on
                return
            learnt, suggested = extraction.Learnt(), 0
            if candidates and prefs.auto_extract:
                learnt = extraction.apply_decisions(
                    job.user_id, None, decisions, candidates, vectors, window, dated=True
                )
            elif candidates:
                suggested = suggest(job.user_id, candidates, window)
            written = list(learnt.written)
            episode = None
            if last or (index + 1) % WINDOWS_PER_EPISODE == 0:  # a chat's window of 30 is over
                first = index - index % WINDOWS_PER_EPISODE
                chunk = [m for w in windows[first : index + 1] for m in w]
                episode = _episode(job.user_id, chunk, llm, prefs, [*locked.memory_ids, *written])
            if isinstance(episode, Memory):
                written.append(episode.pk)
            LearnJob.objects.filter(pk=job.pk).update(
                windows_done=index + 1,
                done=min(job.total, (index + 1) * extraction.WINDOW),
                created=locked.created + learnt.created + isinstance(episode, Memory),
                superseded=locked.superseded + learnt.superseded,
                asked=locked.asked + learnt.asked,
                suggested=locked.suggested + suggested + isinstance(episode, MemorySuggestion),
                memory_ids=[*locked.memory_ids, *written],
                **({"status": RunStatus.DONE, "messages": [], "finished_at": timezone.now()} if last else {}),
            )


def suggest(user_id: int, candidates: list[Candidate], window: list[Message]) -> int:
    """Auto-extract is off: each candidate waits on the memories page for the user's confirmation, as a
    chat's do, dated when it was said."""
    for candidate in candidates:
        said = extraction.source_message(candidate, window)
        MemorySuggestion.objects.create(
            user_id=user_id,
            content=candidate.content,
            kind=candidate.kind.value,
            importance=candidate.importance,
            confidence=candidate.confidence,
            valid_from=anchored_start(candidate.content, said.created_at) or said.created_at,
        )
    return len(candidates)


def _episode(
    user_id: int, chunk: list[Message], llm: LLMProvider | None, prefs: MemorySettings, learnt_ids: list[int]
) -> Memory | MemorySuggestion | None:
    """The episode a chat's window of 30 messages leaves, when it settled or told something its typed
    memories do not hold (engine/learning/consolidation.py); None when it did not."""
    said = [{"role": m.role, "content": m.content} for m in chunk]
    learnt = list(
        Memory.objects.filter(pk__in=learnt_ids).exclude(kind=MemoryKind.EPISODE).values_list("content", flat=True)
    )
    if llm is None:  # as a chat's: what the rules type from these turns counts as learnt
        learnt += [candidate.content for candidate in extract_candidates(said, None).candidates]
    summary = consolidation.episode_summary(said, llm, list(dict.fromkeys(learnt)))
    if not summary:
        return None
    began = chunk[0].created_at
    episode: dict[str, Any] = {
        "kind": MemoryKind.EPISODE,
        "importance": consolidation.EPISODE_IMPORTANCE,
        "confidence": consolidation.EPISODE_CONFIDENCE,
        "valid_from": began,
    }
    content = consolidation.episode_content(began, summary)
    if not prefs.auto_extract:
        return MemorySuggestion.objects.create(user_id=user_id, content=content, **episode)
    return write.add_memory(user_id, content, **episode, source=MemorySource.EXTRACTED, actor=Actor.EXTRACTOR).memory


def _close(job: LearnJob, status: str, *, error: str = "") -> LearnJob:
    LearnJob.objects.filter(pk=job.pk).update(status=status, error=error, messages=[], finished_at=timezone.now())
    job.refresh_from_db()
    return job
