"""When a chat ends (DESIGN flow 1): the last browser tab showing it left it (closed, or went to another
chat), its user opened another chat while no tab shows it, its REST client ended it (`end_chat`), or it has
been idle for CHAT_IDLE_MINUTES. Ending marks it (`ended_at`, claimed by one conditional update) so that its
unextracted tail is extracted and its last, partial episode consolidated: `end_chats` queues
`Job.FINISH_CHAT` through the job seam (engine/jobs.py), whose task calls `finish_chat`, which queues the
windows. A chat that goes on after it ended simply extends: its next message clears the mark, and it ends
again later with only what is new.

Which chats a tab shows is counted in the cache by the chat's websocket (conversations/consumers.py): a
second tab opening a chat never ends the chat of the first. A temporary chat is not ended but discarded,
once its own tab left it (or its REST client ended it); nothing is queued for a user whose memory is off.
Creating or opening a chat through the REST API ends no other chat: two programs of one user may each
hold a chat open, and each ends its own (or the idle sweep does).
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db.models import Max, Q
from django.utils import timezone

from conversations.models import Conversation, Role
from memoryapp.models import MemorySettings
from memoryapp.pipeline.models import ExtractionRun

from .. import jobs
from ..learning.extraction import WINDOW
from . import state_offer


def _open_chats(user_id: int | None = None):
    """Kept chats with a user message that have not ended since their last message."""
    chats = Conversation.objects.filter(temporary=False, ended_at__isnull=True, messages__role=Role.USER)
    if user_id is not None:
        chats = chats.filter(user_id=user_id)
    return chats.distinct()


# A count left behind by a server that died with sockets open must not keep a chat open for ever: the
# count lives a day from its chat's first tab (temporary chats live no longer, services.TEMPORARY_TTL).
TAB_COUNT_SECONDS = 24 * 3600


def _tab_key(conversation_id: int) -> str:
    return f"chat-tabs:{conversation_id}"


def tab_opened(conversation_id: int) -> int:
    """A tab connected to the chat (its websocket); returns how many tabs show it."""
    key = _tab_key(conversation_id)
    cache.add(key, 0, TAB_COUNT_SECONDS)
    return cache.incr(key)


def tab_closed(conversation_id: int) -> int:
    """A tab left the chat; returns how many tabs still show it."""
    try:
        return max(cache.decr(_tab_key(conversation_id)), 0)
    except ValueError:  # the count expired
        return 0


def open_in_tabs(conversation_ids: list[int]) -> set[int]:
    """Those of the chats that a browser tab shows now."""
    counts = cache.get_many([_tab_key(pk) for pk in conversation_ids])
    return {pk for pk in conversation_ids if counts.get(_tab_key(pk), 0) > 0}


def other_open_chats(user_id: int, keep: int | None) -> list[int]:
    """The user's chats that end because they opened or started `keep`: not those another tab still shows
    (each ends when its own tab leaves it, `leave_chat`)."""
    chats = list(_open_chats(user_id).exclude(pk=keep).values_list("pk", flat=True))
    shown = open_in_tabs(chats)
    return [pk for pk in chats if pk not in shown]


def leave_chat(conversation_id: int) -> str:
    """The last tab showing the chat left it a moment ago (a reload comes back within that moment): unless
    a tab shows it again, a temporary chat is discarded and a kept one ends (`end_chats`). Returns "shown",
    "discarded", "ended" or "" (nothing to do)."""
    if open_in_tabs([conversation_id]):
        return "shown"
    if Conversation.objects.filter(pk=conversation_id, temporary=True).delete()[0]:
        return "discarded"
    if _open_chats().filter(pk=conversation_id).exists():
        end_chats([conversation_id])
        return "ended"
    return ""


def end_chat(conversation_id: int) -> str:
    """Its client asked to end the chat now (the REST API: `POST /api/conversations/{id}/end`): a temporary
    chat is discarded, as when its tab leaves it; a kept one ends (`end_chats`). Ending an ended chat again
    changes nothing. Returns "discarded", "ended" or "already_ended"."""
    if Conversation.objects.filter(pk=conversation_id, temporary=True).delete()[0]:
        return "discarded"
    return "ended" if end_chats([conversation_id]) else "already_ended"


def end_chats(conversation_ids: list[int]) -> list[int]:
    """Mark the chats ended and queue what each still owes once the marks are committed (consolidation
    reads the mark); returns those this call ended. A chat whose job cannot be queued (broker down) is
    opened again, for the idle sweep to end later."""
    ended = []
    for pk in conversation_ids:
        if mark_ended(pk):
            jobs.enqueue(jobs.Job.FINISH_CHAT, pk, if_not_queued=functools.partial(_reopen, pk))
            ended.append(pk)
    return ended


def end_idle_chats() -> int:
    """The sweep (beat, every 5 minutes): end the chats idle for CHAT_IDLE_MINUTES; returns how many."""
    return len(end_chats(idle_chats()))


def finish_chat(conversation_id: int) -> int:
    """What an ended chat still owes (the FINISH_CHAT job): queue extraction of its unextracted tail,
    consolidation of its last episode, and the learning of what its working memory says of the user
    (state_offer.py); returns the number of windows queued. Both jobs are idempotent on
    their windows, so finishing twice adds nothing."""
    conversation = Conversation.objects.filter(pk=conversation_id, temporary=False).first()
    if conversation is None:
        return 0
    if not MemorySettings.objects.get_or_create(user_id=conversation.user_id)[0].memory_enabled:
        return 0
    windows = unextracted_windows(conversation)
    for ids in windows:
        jobs.enqueue(jobs.Job.EXTRACT, conversation_id, ids)
    jobs.enqueue(jobs.Job.CONSOLIDATE, conversation_id)
    state_offer.offer(conversation.user, conversation_id)  # what its working memory says of the user
    return len(windows)


def idle_chats(now: datetime | None = None, idle_minutes: int | None = None) -> list[int]:
    """Chats whose last message is older than the idle limit (settings.CHAT_IDLE_MINUTES)."""
    from django.conf import settings

    limit = idle_minutes if idle_minutes is not None else settings.CHAT_IDLE_MINUTES
    cutoff = (now or timezone.now()) - timedelta(minutes=limit)
    chats = _open_chats().annotate(last=Max("messages__created_at")).filter(last__lt=cutoff)
    return list(chats.order_by("pk").values_list("pk", flat=True))


def mark_ended(conversation_id: int, now: datetime | None = None) -> bool:
    """End the chat; True for the one caller that ended it (others find it ended already)."""
    return (
        Conversation.objects.filter(pk=conversation_id, temporary=False, ended_at__isnull=True).update(
            ended_at=now or timezone.now()
        )
        == 1
    )


def _reopen(conversation_id: int) -> None:
    Conversation.objects.filter(pk=conversation_id).update(ended_at=None)


def reopen(conversation: Conversation) -> None:
    """A new message in an ended chat: it goes on, and will end again."""
    if conversation.ended_at is not None:
        Conversation.objects.filter(pk=conversation.pk).update(ended_at=None)
        conversation.ended_at = None


def unextracted_windows(conversation: Conversation) -> list[list[int]]:
    """The messages after the last extracted window, in windows of WINDOW messages; none when they hold
    no user message (an assistant's reply alone teaches nothing about the user)."""
    since = ExtractionRun.objects.filter(conversation=conversation).aggregate(last=Max("last_message_id"))["last"]
    rows = list(
        conversation.messages.filter(Q(role=Role.USER) | Q(role=Role.ASSISTANT), id__gt=since or 0)
        .order_by("created_at", "id")
        .values_list("id", "role")
    )
    windows = [rows[i : i + WINDOW] for i in range(0, len(rows), WINDOW)]
    return [[pk for pk, _ in window] for window in windows if any(role == Role.USER for _, role in window)]
