"""Rolling compaction (DESIGN flow 1): when a chat's turns no longer fit the history budget, the oldest
are folded into a summary kept on the conversation, with one model call, and the prompt carries the
summary in their place. The next compaction folds the previous summary in, so the beginning of a long
chat keeps informing its replies. After compacting, the turns kept fill at most half the budget: the
next compaction is many turns away, not one model call per turn.

Without a model the summary is the extractive one (engine/llm/chat_summary.py). A model that fails here
does not fail the turn: the oldest turns are then simply left out, as before compaction existed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from conversations.models import Conversation

from ..llm.chat_summary import compact_summary
from ..text import count_tokens

if TYPE_CHECKING:
    from memoryapp.providers.llm.base import LLMProvider

log = logging.getLogger(__name__)

KEEP_SHARE = 0.5  # of the history budget, for the turns kept after a compaction
SUMMARY_SHARE = 0.25  # of the history budget, at most, for the summary itself
MESSAGE_OVERHEAD = 4  # tokens per message beyond its text (as context.fit_history counts)


def _cost(messages: list[dict]) -> int:
    return sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD for m in messages)


def overflows(messages: list[dict], budget_tokens: int) -> bool:
    return _cost(messages) > budget_tokens


def compact(conversation: Conversation, messages: list[dict], budget_tokens: int, llm: LLMProvider | None) -> bool:
    """Fold the oldest of `messages` (the turns after the current summary, oldest first, each with its
    `id`) into the conversation's summary, keeping the newest that fit KEEP_SHARE of the budget.
    True when the summary changed. `llm`: the chat's model, None when there is none."""
    from memoryapp.providers.llm import ProviderError

    from .context import shorten_middle

    if not messages:
        return False
    kept, used = 0, 0
    for message in reversed(messages[1:]):  # the oldest message always folds: something must
        cost = count_tokens(message["content"]) + MESSAGE_OVERHEAD
        if used + cost > budget_tokens * KEEP_SHARE:
            break
        kept, used = kept + 1, used + cost
    fold = messages[: len(messages) - kept]
    try:
        summary = compact_summary(
            conversation.summary, [{"role": m["role"], "content": m["content"]} for m in fold], llm
        )
    except ProviderError as exc:
        log.warning("could not compact conversation %s (%s); its oldest turns are left out", conversation.pk, exc)
        return False
    summary = shorten_middle(" ".join(summary.split()), int(budget_tokens * SUMMARY_SHARE))
    conversation.summary, conversation.summary_until = summary, fold[-1]["id"]
    Conversation.objects.filter(pk=conversation.pk).update(summary=summary, summary_until=fold[-1]["id"])
    return True
