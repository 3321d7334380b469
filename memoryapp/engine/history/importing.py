"""Learning from a ChatGPT or Claude export (the memories page's "Import from ChatGPT or Claude", `POST
/api/memories/import/history`): the upload is kept, previewed, and once the user starts it, learnt from by
the worker as another program's conversation is (engine/learning/turns.py), one conversation at a time.

`receive` keeps the upload (lib/uploads.py) and reads it once for the preview (preview.py), which the job
holds; a file that is not an export raises exports.ExportError and leaves nothing behind. `start` takes the
conversations the user left ticked, within the dates they chose, and puts them oldest first: neither export
promises an order, and a change is learnt as a change only after what it changes. `run_history_import` (the
worker's `Job.LEARN_HISTORY`) reads the file again in passes that hold at most BATCH_CHARS of text, and
learns the conversations in groups of about GROUP_USER_TURNS user turns, each group in one transaction with
the job's count of conversations done: a worker that stops resumes after the last group learnt, and no
conversation is ever half-written. A model reads a group in one call for what it says (a long conversation in
several) and one for what that changes (none when nothing is near): a history costs about one call per 10
user turns, where a chat's windows of 10 messages would cost one per 2 or 3. No episode is left per
conversation, as a chat leaves: a thousand summaries of old chats would crowd the memories and double the
calls; the conversations themselves can be kept as chats instead (`keep_chats`).

`undo` takes every memory the import wrote back (engine/memories/write.py revert_memory: what one replaced is
current again) and the chats it kept.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from conversations.models import Conversation, Message, Role
from memoryapp.lib import clients, uploads
from memoryapp.models import Actor, Memory, MemorySettings, MemoryStatus, user_id_of
from memoryapp.pipeline.models import ExtractionRun, HistoryImport, HistoryImportStatus, RunStatus
from memoryapp.providers.llm import ProviderError

from .. import jobs
from ..errors import MemoryConflict, MemoryValidationError
from ..learning import extraction
from ..learning.turns import suggest
from ..llm import CONFIGURED, ModelChoice, resolve
from ..memories import write
from .exports import ExportError, open_export
from .formats import HistoryConversation
from .preview import PreviewRow, PreviewTotals, preview_export, totals

if TYPE_CHECKING:
    from memoryapp.providers.embeddings.base import Embedder
    from memoryapp.providers.llm.base import LLMProvider

log = logging.getLogger(__name__)

GROUP_USER_TURNS = 20  # user turns a model call reads: short conversations are packed together up to this
WINDOW_CHARS = 24_000  # text a model call reads, at most (a long conversation is read in several)
ASSISTANT_CHARS = 600  # of an answer, what the model reads: the user's words are what is learnt
BATCH_CHARS = 20_000_000  # text of the conversations held at once to learn them oldest first
STALLED_AFTER = timedelta(minutes=15)  # "running" with no conversation learnt this long: its worker died
STALE_PREVIEW = timedelta(days=1)  # a preview never started is dropped with its file after this
ATTEMPTS = 3  # a conversation whose memories changed under it is decided again this often
MISSING = "not found in the file when it was learnt"
NOT_QUEUED = "the background queue could not be reached; nothing was learnt"
FAILED = "learning stopped (%s); the conversations learnt before it stay, and Resume goes on after them"
MEMORY_OFF = "memory is off in this account's settings, so nothing was learnt"


# --- The preview ------------------------------------------------------------------------------


def receive(user, source: IO[bytes], name: str, *, actor: str = Actor.USER) -> HistoryImport:
    """Keep the upload and preview it: the job, waiting for `start`. Raises ExportError (one sentence) for
    a file that is not an export, keeping nothing."""
    user_id = user_id_of(user)
    suffix = ".zip" if name.lower().endswith(".zip") else ".json"
    return receive_kept(user, uploads.keep(user_id, source, suffix), name, actor=actor)


def receive_kept(user, path: Path, name: str, *, actor: str = Actor.USER) -> HistoryImport:
    """`receive` for an upload already kept at `path` (one sent in parts, lib/uploads.py); the file is the
    job's now, or removed with an ExportError."""
    user_id = user_id_of(user)
    try:
        preview = preview_export(path, name=name)
    except BaseException:
        uploads.remove(path)
        raise
    return HistoryImport.objects.create(
        user_id=user_id,
        actor=actor,
        client=clients.current_client(),  # the program that sent it: what it writes names it
        format=preview.format.value,
        name=name[:255],
        path=str(path),
        rows=[_row_data(row) for row in preview.rows],
        skipped=[str(skip) for skip in preview.skipped],
    )


def _row_data(row: PreviewRow) -> list:
    moment = row.created_at.isoformat() if row.created_at else None
    return [row.id, row.title, moment, row.user_turns, row.messages, row.archived, row.temporary, row.chars]


def rows_of(job: HistoryImport) -> list[PreviewRow]:
    return [
        PreviewRow(cid, title, datetime.fromisoformat(at) if at else None, turns, count, archived, temporary, chars)
        for cid, title, at, turns, count, archived, temporary, chars in job.rows
    ]


def totals_of(job: HistoryImport, *, selected: bool = False) -> PreviewTotals:
    """The preview's figures: of every conversation, or of those ticked at first (`selected`)."""
    rows = rows_of(job)
    return totals(row for row in rows if row.selected or not selected)


def job_of(user, job_id: int) -> HistoryImport | None:
    """The user's import; another user's is missing, like one that never existed."""
    return HistoryImport.objects.filter(user_id=user_id_of(user), pk=job_id).first()


def shown(user) -> HistoryImport | None:
    """The import the memories page shows: one learning, or the last finished one that can still be undone
    (for a day after it finished)."""
    recent = timezone.now() - timedelta(days=1)
    return (
        HistoryImport.objects.filter(user_id=user_id_of(user))
        .filter(
            Q(status__in=[HistoryImportStatus.QUEUED, HistoryImportStatus.RUNNING, HistoryImportStatus.FAILED])
            | Q(status=HistoryImportStatus.DONE, finished_at__gte=recent)
        )
        .order_by("-created_at", "-id")
        .first()
    )


def drop(job: HistoryImport) -> None:
    """A preview the user does not want: gone with its file."""
    if job.status != HistoryImportStatus.PREVIEW:
        raise MemoryConflict("only an import not started yet can be dropped; undo a finished one")
    uploads.remove(job.path)
    job.delete()


def drop_stale_previews(now: datetime | None = None) -> int:
    """Previews never started (the user went away): their files go after STALE_PREVIEW (the beat)."""
    stale = HistoryImport.objects.filter(
        status=HistoryImportStatus.PREVIEW, created_at__lt=(now or timezone.now()) - STALE_PREVIEW
    )
    for job in stale:
        uploads.remove(job.path)
    # Uploads sent in parts never finished: no job holds them (a job's own file is never this old unused).
    started = set(HistoryImport.objects.exclude(path="").values_list("path", flat=True))
    uploads.remove_stale_parts(STALE_PREVIEW.total_seconds(), keep=started)
    return stale.delete()[0]


# --- Starting ---------------------------------------------------------------------------------


def start(
    job: HistoryImport,
    *,
    ticked: Iterable[str] | None = None,
    since: date | None = None,
    until: date | None = None,
    keep_chats: bool = False,
) -> HistoryImport:
    """Queue the learning of the conversations ticked (None: those the preview ticks, archived and temporary
    ones left out) and dated within `since`..`until` (days, both included), oldest first.
    MemoryValidationError when none is left; MemoryConflict when the job was started already."""
    if since and until and since > until:
        raise MemoryValidationError("the first day is after the last day", "since")
    wanted = set(ticked) if ticked is not None else None
    chosen: list[tuple[datetime, int, str]] = []
    seen: set[str] = set()
    for position, row in enumerate(rows_of(job)):
        if row.id in seen or not (row.id in wanted if wanted is not None else row.selected):
            continue
        day = timezone.localdate(row.created_at) if row.created_at else None
        if (since and (day is None or day < since)) or (until and (day is None or day > until)):
            continue
        seen.add(row.id)
        chosen.append((row.created_at or datetime.min.replace(tzinfo=UTC), position, row.id))
    if not chosen:
        raise MemoryValidationError("no conversation is ticked within those dates", "conversations")
    order = [cid for _at, _position, cid in sorted(chosen)]
    started = HistoryImport.objects.filter(pk=job.pk, status=HistoryImportStatus.PREVIEW).update(
        status=HistoryImportStatus.QUEUED,
        selected=order,
        total=len(order),
        keep_chats=keep_chats,
        started_at=timezone.now(),
        updated_at=timezone.now(),
    )
    if not started:
        raise MemoryConflict("this import was started already")
    jobs.enqueue(jobs.Job.LEARN_HISTORY, job.pk, if_not_queued=lambda: _not_queued(job.pk))
    job.refresh_from_db()
    return job


def resume(job: HistoryImport) -> HistoryImport:
    """A failed import goes on after the last conversation it learnt."""
    if not HistoryImport.objects.filter(pk=job.pk, status=HistoryImportStatus.FAILED).update(
        status=HistoryImportStatus.QUEUED, error="", finished_at=None, updated_at=timezone.now()
    ):
        raise MemoryConflict("only an import that stopped can be resumed")
    jobs.enqueue(jobs.Job.LEARN_HISTORY, job.pk, if_not_queued=lambda: _not_queued(job.pk))
    job.refresh_from_db()
    return job


def _not_queued(job_id: int) -> None:
    HistoryImport.objects.filter(pk=job_id, status=HistoryImportStatus.QUEUED).update(
        status=HistoryImportStatus.FAILED, error=NOT_QUEUED, finished_at=timezone.now()
    )


def stalled(now: datetime | None = None) -> list[int]:
    """Imports whose worker died (running, nothing learnt for STALLED_AFTER) or whose message was lost
    (queued as long): the sweep queues them again, and each resumes after its last conversation."""
    before = (now or timezone.now()) - STALLED_AFTER
    return list(
        HistoryImport.objects.filter(
            status__in=[HistoryImportStatus.QUEUED, HistoryImportStatus.RUNNING], updated_at__lt=before
        ).values_list("pk", flat=True)
    )


def requeue_stalled(now: datetime | None = None) -> int:
    ids = stalled(now)
    for job_id in ids:
        jobs.enqueue(jobs.Job.LEARN_HISTORY, job_id)
    return len(ids)


# --- Learning ---------------------------------------------------------------------------------


def run_history_import(
    job_id: int, *, llm: ModelChoice = CONFIGURED, embedder: Embedder | None = None, will_retry: bool = False
) -> HistoryImport | None:
    """Learn the import's conversations from the first one not learnt yet (the worker's). A failure marks
    the job failed (what was learnt stays; Resume goes on) and is raised; `will_retry`: the caller tries
    again after a passing failure (the model's timeout), so the job stays running through one."""
    job = HistoryImport.objects.filter(pk=job_id).first()
    if job is None or job.status not in (HistoryImportStatus.QUEUED, HistoryImportStatus.RUNNING):
        return job
    prefs = MemorySettings.objects.get_or_create(user_id=job.user_id)[0]
    if not prefs.memory_enabled:
        return _finish(job, HistoryImportStatus.FAILED, error=MEMORY_OFF)
    HistoryImport.objects.filter(pk=job.pk).update(status=HistoryImportStatus.RUNNING, updated_at=timezone.now())
    model = resolve(llm)
    try:
        with clients.acting_for(job.client):  # the program that sent the export, on what it writes
            for batch in _batches(job):
                found = _read(job.path, batch)
                for group in _groups(batch, found):
                    if not _learn_group(job.pk, group, found, model, embedder, prefs):
                        return HistoryImport.objects.get(pk=job.pk)  # another run of the job is at it
    except Exception as exc:
        if will_retry and isinstance(exc, ProviderError) and exc.retryable:
            raise
        reason = str(exc) if isinstance(exc, ExportError) else type(exc).__name__
        _finish(job, HistoryImportStatus.FAILED, error=FAILED % reason, keep_file=True)
        raise
    return _finish(job, HistoryImportStatus.DONE)


def _batches(job: HistoryImport) -> Iterator[list[str]]:
    """The conversations still to learn, in order, in groups whose text fits BATCH_CHARS (one read each)."""
    job.refresh_from_db()
    size = {row.id: row.chars for row in rows_of(job)}
    batch: list[str] = []
    chars = 0
    for cid in job.selected[job.done :]:
        if batch and chars + size.get(cid, 0) > BATCH_CHARS:
            yield batch
            batch, chars = [], 0
        batch.append(cid)
        chars += size.get(cid, 0)
    if batch:
        yield batch


def _read(path: str, wanted: list[str]) -> dict[str, HistoryConversation]:
    """The wanted conversations, from one streaming pass over the file (stopping once all are found)."""
    missing = set(wanted)
    found: dict[str, HistoryConversation] = {}
    if not os.path.exists(path):
        raise ExportError("the uploaded file is gone; upload the export again")
    with open_export(path) as export:
        for conversation in export:
            if conversation.id in missing:
                found[conversation.id] = conversation
                missing.discard(conversation.id)
                if not missing:
                    break
    return found


def _groups(batch: list[str], found: dict[str, HistoryConversation]) -> Iterator[list[str]]:
    """The batch's conversations packed in order, each group at least GROUP_USER_TURNS user turns where the
    conversations allow (a long one alone is a group): one transaction each, and a model call reads a whole
    group, so short conversations share their calls."""
    group: list[str] = []
    turns = 0
    for cid in batch:
        group.append(cid)
        conversation = found.get(cid)
        turns += conversation.user_turns if conversation else 0
        if turns >= GROUP_USER_TURNS:
            yield group
            group, turns = [], 0
    if group:
        yield group


def _learn_group(
    job_id: int,
    group: list[str],
    found: dict[str, HistoryConversation],
    llm: LLMProvider | None,
    embedder: Embedder | None,
    prefs: MemorySettings,
) -> bool:
    """Learn a group of conversations in one transaction with the job's counters; False when another run
    of the job learnt them first (this one stops)."""
    calls_before = getattr(llm, "calls", 0)  # before the first attempt: calls of one rolled back count too
    for attempt in range(ATTEMPTS):
        try:
            with transaction.atomic():
                job = HistoryImport.objects.select_for_update().get(pk=job_id)
                if job.status != HistoryImportStatus.RUNNING or job.selected[job.done : job.done + len(group)] != group:
                    return False
                missing = [f"“{cid}”: {MISSING}" for cid in group if cid not in found]
                changes = _learn(job, [found[cid] for cid in group if cid in found], llm, embedder, prefs)
                HistoryImport.objects.filter(pk=job_id).update(
                    done=job.done + len(group),
                    updated_at=timezone.now(),
                    model_calls=job.model_calls + getattr(llm, "calls", 0) - calls_before,
                    skipped=[*job.skipped, *missing],
                    **changes,
                )
            return True
        except MemoryConflict:  # memories changed under a window (the user, a chat): decide again
            if attempt == ATTEMPTS - 1:
                raise
    return False


def _learn(
    job: HistoryImport,
    conversations: list[HistoryConversation],
    llm: LLMProvider | None,
    embedder: Embedder | None,
    prefs: MemorySettings,
) -> dict:
    """What learning the conversations wrote, as the job's new counters; inside the job's transaction."""
    messages: list[Message] = []
    kept: list[int] = []
    for conversation in conversations:
        said = _messages(conversation, job.created_at)
        if job.keep_chats:  # saved: the memories learnt from them then point at their chat
            kept.append(_keep_chat(job, conversation, said).pk)
        messages += said
    created, superseded, suggested = job.created, job.superseded, job.suggested
    written: list[int] = []
    for window in _windows(messages):
        candidates = extraction.learn_candidates(_read_as_window(window), llm)
        if not candidates:
            continue
        if not prefs.auto_extract:
            suggested += suggest(job.user_id, candidates, window)
            continue
        vectors, decisions = extraction.decide_candidates(job.user_id, candidates, llm, embedder)
        learnt = extraction.apply_decisions(job.user_id, None, decisions, candidates, vectors, window, dated=True)
        created += learnt.created
        superseded += learnt.superseded
        written += learnt.written
    return {
        "created": created,
        "superseded": superseded,
        "suggested": suggested,
        "memory_ids": [*job.memory_ids, *written],
        "conversation_ids": [*job.conversation_ids, *kept],
    }


def _windows(messages: list[Message]) -> Iterator[list[Message]]:
    """The messages in windows a model call reads: up to GROUP_USER_TURNS user turns and WINDOW_CHARS of
    text, each holding a user turn."""
    window: list[Message] = []
    turns = chars = 0
    for message in messages:
        size = min(len(message.content), ASSISTANT_CHARS) if message.role != Role.USER else len(message.content)
        is_user = message.role == Role.USER
        if window and ((is_user and turns >= GROUP_USER_TURNS) or chars + size > WINDOW_CHARS):
            if turns:
                yield window
            window, turns, chars = [], 0, 0
        window.append(message)
        turns += is_user
        chars += size
    if turns:
        yield window


def _read_as_window(window: list[Message]) -> list[Message]:
    """What the model reads of a window: the user's words whole, each answer's opening (the user's words
    are what is learnt; an answer is context, and a long one costs tokens for nothing)."""
    return [
        m
        if m.role == Role.USER or len(m.content) <= ASSISTANT_CHARS
        else Message(role=m.role, content=m.content[:ASSISTANT_CHARS] + "…", created_at=m.created_at)
        for m in window
    ]


def _messages(conversation: HistoryConversation, fallback: datetime) -> list[Message]:
    """The conversation's messages as unsaved chat messages, each dated: one the export left undated was
    said just after the one before it (or when the conversation began)."""
    moment = conversation.created_at or fallback
    out = []
    for message in conversation.messages:
        moment = max(message.created_at or moment, moment)
        out.append(Message(role=message.role, content=message.text, created_at=moment))
        moment += extraction.SAME_TIME_AFTER
    return out


def _keep_chat(job: HistoryImport, conversation: HistoryConversation, messages: list[Message]) -> Conversation:
    """The conversation as an ended chat of the user's, dated as it was held; its messages are saved (the
    memories learnt from it then point at them)."""
    began, ended = messages[0].created_at, messages[-1].created_at
    chat = Conversation.objects.create(user_id=job.user_id, title=conversation.title[:200], ended_at=ended)
    Conversation.objects.filter(pk=chat.pk).update(created_at=began, updated_at=ended)
    said = [message.created_at for message in messages]
    for message in messages:
        message.conversation = chat
    Message.objects.bulk_create(messages)
    for message, moment in zip(messages, said):  # auto_now_add stamped them now: they were said then
        Message.objects.filter(pk=message.pk).update(created_at=moment)
        message.created_at = moment
    # Learnt here: a chat the user goes on with later learns only its new turns (chat_end.unextracted_windows).
    ids = [message.pk for message in messages]
    ExtractionRun.objects.create(
        user_id=job.user_id,
        conversation=chat,
        key=extraction.window_key(chat.pk, ids),
        message_ids=ids,
        last_message_id=ids[-1],
        status=RunStatus.DONE,
    )
    return chat


def _finish(job: HistoryImport, status: str, *, error: str = "", keep_file: bool = False) -> HistoryImport:
    HistoryImport.objects.filter(pk=job.pk).update(
        status=status, error=error, finished_at=timezone.now(), updated_at=timezone.now()
    )
    if not keep_file:
        uploads.remove(job.path)
        HistoryImport.objects.filter(pk=job.pk).update(path="")
    job.refresh_from_db()
    return job


# --- Undo -------------------------------------------------------------------------------------


def undo(job: HistoryImport, *, actor: str = Actor.USER) -> int:
    """Take back what the import wrote: each of its memories deleted (restorable, as any deletion) and what
    it replaced current again, newest first; the chats it kept removed. Returns how many memories."""
    with transaction.atomic():
        locked = HistoryImport.objects.select_for_update().get(pk=job.pk)
        if locked.status not in (HistoryImportStatus.DONE, HistoryImportStatus.FAILED):
            raise MemoryConflict("an import can be undone once it has finished or stopped")
        taken = 0
        for memory in Memory.objects.filter(
            user_id=locked.user_id, pk__in=locked.memory_ids, status=MemoryStatus.ACTIVE
        ).order_by("-valid_from", "-pk"):
            write.revert_memory(memory, actor=actor)
            taken += 1
        Conversation.objects.filter(user_id=locked.user_id, pk__in=locked.conversation_ids).delete()
        HistoryImport.objects.filter(pk=job.pk).update(
            status=HistoryImportStatus.UNDONE, path="", finished_at=timezone.now(), updated_at=timezone.now()
        )
    uploads.remove(locked.path)
    job.refresh_from_db()
    return taken
