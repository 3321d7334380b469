"""Chat-end jobs (engine/chat/chat_end.py): what an ended chat still owes, and the sweep for idle chats."""

from __future__ import annotations

from celery import shared_task

from memoryapp.engine.chat import chat_end

from .base import PipelineTask


@shared_task(base=PipelineTask, name="tasks.chat_end.finish_chat")
def finish_chat(conversation_id: int) -> int:
    """Job.FINISH_CHAT: queue the chat's unextracted windows and its last episode; returns the windows."""
    return chat_end.finish_chat(conversation_id)


@shared_task(base=PipelineTask, name="tasks.chat_end.end_idle_chats")
def end_idle_chats() -> int:
    """Beat: end the chats idle for CHAT_IDLE_MINUTES."""
    return chat_end.end_idle_chats()
