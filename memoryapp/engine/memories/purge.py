"""Delete forever: a memory with its versions, all of a user's memories, or the whole account.

A purge removes the rows (vectors, search text, context and cues go with them), every copy of their text
(audit snapshots and notes, suggestions, run errors, failed-task records, admin log lines) and, after
commit, their graph episodes and the facts only those supported. The audit keeps one row per purged
memory saying that it was purged, when and by whom, with no content.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models import Max, Q, TextField
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from conversations.models import Conversation, Message, Role
from memoryapp.lib import uploads
from memoryapp.models import Actor, EventAction, Memory, MemoryEvent, MemoryStatus, user_id_of
from memoryapp.pipeline.models import ExtractionRun, FailedTask, HistoryImport, ImportJob, LearnJob, MemorySuggestion

from .. import jobs
from ..chat_state.ending import forget_user
from ..errors import MemoryNotFound
from ..text import content_key, quoted
from .signals import all_memories_purged
from .write import _lock_user, announce

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger(__name__)

PURGED_NOTE = "[purged]"
MIN_SHARED_NEEDLE = 8  # characters


def version_chain(memory: Memory) -> list[Memory]:
    """The memory and every version linked to it by supersedes, either way; other current memories
    stay (the user still sees them, and each holds only its own words)."""
    chain = {memory.pk: memory}
    frontier = [memory]
    while frontier:
        ids = [m.pk for m in frontier if m.pk == memory.pk or not m.is_current]
        linked = (
            Memory.objects.filter(user_id=memory.user_id)
            .filter(Q(superseded_by__in=ids) | Q(supersedes__in=ids))
            .distinct()
        )
        frontier = [m for m in linked if m.pk not in chain]
        chain.update((m.pk, m) for m in frontier)
    return [m for m in chain.values() if m.pk == memory.pk or not m.is_current]


def purge_memory(memory: Memory, *, actor: str = Actor.USER) -> list[int]:
    """Delete `memory` and its versions for good; returns the ids purged."""
    user_id = memory.user_id
    with transaction.atomic():
        _lock_user(user_id)
        locked = Memory.objects.select_for_update().filter(pk=memory.pk).first()
        if locked is None:  # purged meanwhile (another tab, the retention beat)
            raise MemoryNotFound("memory not found")
        return _purge_rows(user_id, version_chain(locked), actor)


def purge_all(user: AbstractBaseUser | int, *, actor: str = Actor.USER) -> int:
    """Delete every memory of the user for good (all statuses, all versions) and its graph; returns how many."""
    user_id = user_id_of(user)
    with transaction.atomic():
        _lock_user(user_id)
        rows = list(Memory.objects.filter(user_id=user_id))
        MemorySuggestion.objects.filter(user_id=user_id).delete()  # candidates are memories-to-be
        imported = ImportJob.objects.filter(user_id=user_id)  # their rows are copies of imported memories
        learning = LearnJob.objects.filter(user_id=user_id)  # their turns, until learnt, and what they learnt
        _delete_failed_tasks(
            import_id=list(imported.values_list("pk", flat=True)), learn_id=list(learning.values_list("pk", flat=True))
        )
        imported.delete()
        learning.delete()
        # An export brought in: its preview names the conversations, its file holds them.
        HistoryImport.objects.filter(user_id=user_id).delete()
        transaction.on_commit(lambda: uploads.remove_user(user_id))
        forget_user(user_id)  # what the chats and programs keep in mind for the task at hand
        _purge_rows(user_id, rows, actor, graph_each=False)
        transaction.on_commit(lambda: all_memories_purged.send_robust(sender=Memory, user_id=user_id))
    return len(rows)


def purge_expired(now: datetime | None = None, *, days: int | None = None) -> int:
    """Purge memories soft-deleted more than DELETED_RETENTION_DAYS ago (the beat); returns how many."""
    days = settings.DELETED_RETENTION_DAYS if days is None else days
    cutoff = (now or timezone.now()) - timedelta(days=days)
    expired = (
        Memory.objects.filter(status=MemoryStatus.DELETED)
        .annotate(
            deleted_at=Coalesce(Max("events__created_at", filter=Q(events__action=EventAction.DELETED)), "updated_at")
        )
        .filter(deleted_at__lt=cutoff)
        .order_by("pk")
    )
    purged: set[int] = set()
    for memory in expired:
        if memory.pk in purged:
            continue  # went with a later version's chain
        try:
            purged.update(purge_memory(memory, actor=Actor.SYSTEM))
        except MemoryNotFound:
            continue  # purged by its owner meanwhile
    return len(purged)


def delete_account(user: AbstractBaseUser) -> None:
    """Remove the user and everything of theirs; the graph group goes after commit."""
    user_id = user.pk
    with transaction.atomic():
        _lock_user(user_id)
        rows = list(Memory.objects.filter(user_id=user_id).values_list("pk", "content"))
        _scrub_shared_records(user_id, [text for _pk, text in rows], memory_ids=[pk for pk, _text in rows])
        _delete_failed_tasks(
            user_id=[user_id],
            memory_id=[pk for pk, _text in rows],
            import_id=list(ImportJob.objects.filter(user_id=user_id).values_list("pk", flat=True)),
            learn_id=list(LearnJob.objects.filter(user_id=user_id).values_list("pk", flat=True)),
            history_id=list(HistoryImport.objects.filter(user_id=user_id).values_list("pk", flat=True)),
            conversation_id=list(Conversation.objects.filter(user_id=user_id).values_list("pk", flat=True)),
        )
        _delete_sessions(user_id)
        user.delete()  # memories, events, chats, runs, suggestions, tokens, settings: ON DELETE CASCADE
        transaction.on_commit(lambda: all_memories_purged.send_robust(sender=Memory, user_id=user_id))
        transaction.on_commit(lambda: uploads.remove_user(user_id))
        forget_user(user_id)
    logger.info("account %s deleted with all its data", user_id)


def _delete_failed_tasks(**ids: list[int]) -> None:
    """FailedTask rows about these ids (by argument name: user_id=[...], memory_id=[...]): once those rows
    are gone a re-run finds nothing, and the record would still point at the account. Each job kind says
    what its first argument is about (`Job.subject`); the seam says which task runs it (engine/jobs.py)."""
    match = Q(pk__in=[])
    for kind, task_name in jobs.registered():
        wanted = ids.get(kind.subject)
        if wanted:
            match |= Q(task_name=task_name) & (Q(args__0__in=wanted) | Q(**{f"kwargs__{kind.subject}__in": wanted}))
    FailedTask.objects.filter(match).delete()


def _purge_rows(user_id: int, rows: list[Memory], actor: str, *, graph_each: bool = True) -> list[int]:
    ids = [m.pk for m in rows]
    if not ids:
        return []
    texts = [m.content for m in rows] + [m.context for m in rows if m.context]
    keys = {m.content_key for m in rows}
    MemorySuggestion.objects.filter(user_id=user_id).filter(
        Q(memory_id__in=ids) | Q(content__in=[m.content for m in rows])
    ).delete()
    for suggestion in MemorySuggestion.objects.filter(user_id=user_id).only("pk", "content"):
        if content_key(suggestion.content) in keys:  # the same words, spaced or cased differently
            suggestion.delete()
    MemoryEvent.objects.filter(user_id=user_id, memory_ref__in=ids).delete()
    _scrub_notes(user_id, texts)
    _scrub_command_replies(user_id, [m.content for m in rows])
    # A model's answer that failed validation can quote cues (a run's error): they go too. Not from other
    # memories' notes, which quote contents; a short cue ("周末安排") would match them by chance.
    _scrub_shared_records(user_id, texts + [cue for m in rows for cue in m.cues], memory_ids=ids)
    _delete_failed_tasks(memory_id=ids)
    episode_ids = {m.pk: m.graph_episode_id for m in rows}
    Memory.objects.filter(pk__in=ids).delete()  # citations and supersedes links cascade
    now = timezone.now()
    MemoryEvent.objects.bulk_create(
        [
            MemoryEvent(
                user_id=user_id, memory=None, memory_ref=pk, action=EventAction.PURGED, actor=actor, created_at=now
            )
            for pk in ids
        ]
    )
    if graph_each:
        for pk in ids:
            announce(user_id, pk, EventAction.PURGED, episode_id=episode_ids[pk])
    else:  # every memory of the user: one batch event; the graph drops the whole group (all_memories_purged)
        announce(user_id, None, EventAction.PURGED, count=len(ids))
    return ids


def _scrub_notes(user_id: int, texts: list[str]) -> None:
    """Other memories' events may quote a purged text ("merged a duplicate: ...")."""
    for start in range(0, len(texts), 100):
        needles = [text[:50] for text in texts[start : start + 100]]
        MemoryEvent.objects.filter(user_id=user_id).filter(_any("note", needles)).update(note=PURGED_NOTE)


def _scrub_command_replies(user_id: int, contents: list[str]) -> None:
    """The chat's own answers to "what do you remember about me?" and "forget that ..." quote memories word
    for word (engine/chat/memory_commands.py): those quotes go with the memory. What the user or a model wrote
    in a chat stays the user's, to delete with the chat."""
    quotes = [quoted(content) for content in contents]
    replies = Message.objects.filter(
        conversation__user_id=user_id, role=Role.ASSISTANT, memory_command__isnull=False
    ).only("pk", "content")
    for reply in replies.iterator():
        text = reply.content
        for quote in quotes:
            text = text.replace(quote, PURGED_NOTE)
        if text != reply.content:
            reply.content = text
            reply.save(update_fields=["content"])


def _scrub_shared_records(user_id: int, texts: list[str], *, memory_ids: list[int]) -> None:
    """Rows that can quote memory text: run errors, failed tasks, admin log lines. The last two have no
    owner, so only texts long enough not to match by chance are looked for there."""
    memory_type = ContentType.objects.get_for_model(Memory)
    LogEntry.objects.filter(content_type=memory_type, object_id__in=[str(pk) for pk in memory_ids]).delete()
    failed = FailedTask.objects.annotate(args_text=Cast("args", TextField()), kwargs_text=Cast("kwargs", TextField()))
    for start in range(0, len(texts), 100):  # bounded OR lists, even for a whole account
        needles = [text[:50] for text in texts[start : start + 100]]
        ExtractionRun.objects.filter(user_id=user_id).filter(_any("error", needles)).update(error=PURGED_NOTE)
        needles = [needle for needle in needles if len(needle) >= MIN_SHARED_NEEDLE]
        failed.filter(
            _any("error", needles)
            | _any("traceback", needles)
            | _any("args_text", needles)
            | _any("kwargs_text", needles)
        ).delete()
        LogEntry.objects.filter(_any("object_repr", needles) | _any("change_message", needles)).delete()


def _any(field: str, needles: list[str]) -> Q:
    match = Q(pk__in=[])
    for needle in needles:
        match |= Q(**{f"{field}__icontains": needle})
    return match


def _delete_sessions(user_id: int) -> None:
    """Log the account out everywhere: its sessions hold its id."""
    doomed = [
        s.pk
        for s in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(s.get_decoded().get("_auth_user_id")) == str(user_id)
    ]
    Session.objects.filter(pk__in=doomed).delete()
