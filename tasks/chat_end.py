"""Chat-end jobs (engine/chat_end.py): what an ended chat still owes, and the sweep for idle chats."""
from __future__ import annotations

from celery import shared_task

from conversations.models import Conversation
from memoryapp.engine import chat_end
from memoryapp.models import MemorySettings

from .base import PipelineTask
from .consolidation import consolidate_conversation
from .extraction import extract_messages


@shared_task(base=PipelineTask, name="tasks.chat_end.finish_chat")
def finish_chat(conversation_id: int) -> int:
    """Queue extraction of the chat's unextracted tail and consolidation of its last episode; returns the
    number of windows queued. Both jobs are idempotent on their windows, so a second call adds nothing."""
    conversation = Conversation.objects.filter(pk=conversation_id, temporary=False).first()
    if conversation is None:
        return 0
    if not MemorySettings.objects.get_or_create(user_id=conversation.user_id)[0].memory_enabled:
        return 0
    windows = chat_end.unextracted_windows(conversation)
    for ids in windows:
        extract_messages.delay(conversation_id, ids)
    consolidate_conversation.delay(conversation_id)
    return len(windows)


def end_chats(conversation_ids: list[int]) -> list[int]:
    """Mark the chats ended and queue what each still owes once the marks are committed (consolidation
    reads the mark). A chat whose job cannot be queued is left open, for the idle sweep to end later."""
    ended = []
    for pk in conversation_ids:
        if not chat_end.mark_ended(pk):
            continue
        try:
            finish_chat.delay_on_commit(pk)
        except Exception:
            chat_end.reopen(Conversation.objects.get(pk=pk))
            raise
        ended.append(pk)
    return ended


@shared_task(base=PipelineTask, name="tasks.chat_end.end_idle_chats")
def end_idle_chats() -> int:
    """Beat: end the chats idle for CHAT_IDLE_MINUTES."""
    return len(end_chats(chat_end.idle_chats()))
