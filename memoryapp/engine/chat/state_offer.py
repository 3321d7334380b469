"""At a chat's end, what its working memory (engine/chat_state) holds about the user rather than the task ("I always pick aisle
seats", written in the panel or by a program) is offered to long-term memory through the usual learning
path: learnt with auto-learn on, a suggestion with it off, refused like any turn when it holds a secret.
A task detail (a slot of slots.LABELS: the dates, the destination) ends with the chat."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from memoryapp.lib.scripts import HAN
from memoryapp.models import Actor

from ..chat_state import store
from ..chat_state.slots import LABELS
from ..errors import EngineError
from ..learning import turns

logger = logging.getLogger(__name__)

MIN_WORDS, MIN_HAN = 2, 3  # "aisle" or "靠窗" alone says too little to learn from
SOURCE = "working memory"


def about_the_user(entries: list[store.Entry]) -> list[str]:
    """The entries that may be about the user: not a task slot, a sentence of text."""
    return [
        entry.value.strip()
        for entry in entries
        if entry.key not in LABELS and isinstance(entry.value, str) and _a_sentence(entry.value)
    ]


def _a_sentence(text: str) -> bool:
    return len(text.split()) >= MIN_WORDS or len(HAN.findall(text)) >= MIN_HAN


def offer(user, conversation_id: int) -> Any:
    """Queue the chat's entries about the user for learning, once per set of texts (the job's key); the
    queued job, or None when there is nothing to offer or working memory is not available."""
    try:
        texts = about_the_user(store.entries(user.pk, store.chat_session(conversation_id)))
    except store.ChatStateUnavailable:
        logger.warning("working memory unavailable at the end of chat %s: nothing offered", conversation_id)
        return None
    if not texts:
        return None
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    data = {
        "messages": [{"role": "user", "content": text} for text in texts],
        "source": SOURCE,
        "idempotency_key": f"chat-state:{conversation_id}:{digest}",
    }
    try:
        return turns.queue_learning(user, data, actor=Actor.EXTRACTOR).job
    except EngineError as exc:  # a text the learning path refuses as a whole: the chat still ends
        logger.warning("working memory of chat %s not offered: %s", conversation_id, exc.message)
        return None
