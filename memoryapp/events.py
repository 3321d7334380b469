"""The `memory.*` events a user's open pages hear, and the one receiver that publishes them.

`MemoryEventType` is the whole vocabulary: Python, templates (the `live` tags) and JS take the names from
here (tests/unit/test_event_names.py fails on a name spelt anywhere else). The engine's write path sends
`memory_changed` after commit with the event it maps the change to; `publish_memory_change`, connected in
`MemoryappConfig.ready()`, sends it to the user's channel group, where the consumer renders the frames.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import models

logger = logging.getLogger(__name__)


class MemoryEventType(models.TextChoices):
    CREATED = "memory.created", "created"
    UPDATED = "memory.updated", "updated"
    DELETED = "memory.deleted", "deleted"
    FORGOTTEN = "memory.forgotten", "forgotten"
    RESTORED = "memory.restored", "restored"
    PURGED = "memory.purged", "deleted forever"
    BATCH = "memory.batch", "many changed at once"  # an import, a re-embed, clear or purge all: one event, a count
    PROGRESS = "memory.progress", "a long job's progress"  # sent as it goes, not after commit: nothing changed yet

    @property
    def handler(self) -> str:
        """The consumer method Channels dispatches it to: `memory.created` arrives at `memory_created`."""
        return self.value.replace(".", "_")


def user_group(user_id: int) -> str:
    # Channels group names: ASCII letters, digits, '-_.', under 100 characters.
    return f"user-{user_id}.memories"


NOTICE_CLOSED = "chat.notice_closed"  # not a memory event: a chat's "memory updated" line was closed


def publish_notice_closed(user_id: int, conversation_id: int) -> None:
    """Tell the user's chat pages of this conversation that its line was closed: the next counts afresh."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(user_group(user_id), {"type": NOTICE_CLOSED, "conversation": conversation_id})


CHAT_STATE = "chat.state"  # not a memory event: a chat's working memory changed (engine/chat_state)


def publish_chat_state(user_id: int, conversation_id: int) -> None:
    """Tell the user's pages that this chat's working memory changed: a tab showing the chat redraws its
    "Keeping in mind" panel. Redis down: nothing to tell (the store is down too)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), {"type": CHAT_STATE, "conversation": conversation_id})
    except Exception:
        logger.warning("could not publish the working memory of chat %s", conversation_id, exc_info=True)


def publish_progress(user_id: int, job: str, done: int, total: int, **outcome: Any) -> None:
    """How far a long job of the user's has got (an import: rows checked of all), to their open pages now,
    inside the job's transaction: a progress line waits for no commit. `outcome` (state "done" with its
    counts, or "failed") comes with the last one."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": MemoryEventType.PROGRESS.value, "job": job, "done": done, "total": total, **outcome}
    try:
        async_to_sync(layer.group_send)(user_group(user_id), message)
    except Exception:  # Redis down: the job goes on unseen
        logger.warning("could not publish progress for user %s", user_id, exc_info=True)


def publish_memory_change(
    sender: Any,
    user_id: int,
    memory_id: int | None,
    action: str,
    event: str | None = None,
    count: int = 1,
    **kwargs: Any,
) -> None:
    """The `memory_changed` receiver (sent after commit): one event to every open page of the user.
    A change no page shows (accessed, exported) comes without `event` and goes nowhere."""
    if event is None:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": MemoryEventType(event).value, "id": memory_id, "action": action, "count": count}
    try:
        async_to_sync(layer.group_send)(user_group(user_id), message)
    except Exception:  # Redis down: the write stands; open pages catch up on their next load
        logger.warning("could not publish %s for user %s", event, user_id, exc_info=True)
