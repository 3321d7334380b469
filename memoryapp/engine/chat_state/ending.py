"""A chat's working memory ends with the chat: deleted (its Delete button, the REST API), a temporary chat
discarded (its tab left it, its client ended it, the 24-hour sweep), its user's account deleted. One
receiver of Conversation's post_delete (wired in ConversationsConfig.ready()) covers every way a chat row
goes; "delete all forever" and account deletion clear the user's program sessions too (`forget_user`).
Redis down: nothing to clear now; the entries expire on their own (WORKING_MEMORY_TTL_HOURS)."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from . import store

logger = logging.getLogger(__name__)


def chat_deleted(sender: Any, instance: Any, origin: Any = None, **kwargs: Any) -> None:
    """post_delete of a Conversation: once the deletion is committed, its session is cleared. Not for an
    account deleted whole (`forget_user` clears all its sessions at once)."""
    if isinstance(origin, get_user_model()):
        return
    user_id, session = instance.user_id, store.chat_session(instance.pk)
    transaction.on_commit(lambda: _clear(user_id, session))


def _clear(user_id: int, session: str) -> None:
    try:
        store.clear(user_id, session)
    except store.ChatStateUnavailable:
        logger.info("working memory of %s not cleared: Redis is down (its entries expire)", session)


def forget_user(user_id: int) -> None:
    """Every session of the user, once the transaction commits (all their data deleted forever)."""

    def clear() -> None:
        try:
            store.clear_user(user_id)
        except store.ChatStateUnavailable:
            logger.info("working memory of user %s not cleared: Redis is down (its entries expire)", user_id)

    transaction.on_commit(clear)
