"""Task: a long chat's rolling summary (engine/chat/compaction.py folds the oldest turns into it).

`earlier` (the previous summary) and the turns that no longer fit become one text the chat can go on
from, in the user's language. With a model: one `complete` call, at most 2,000 characters; an empty
answer is a ProviderOutputError. Without a model: the extractive summary in defaults.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memoryapp.providers.llm.errors import ProviderOutputError

from . import defaults
from .delimiters import block, quoted, render_conversation

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memoryapp.providers.llm.base import LLMProvider

COMPACT_MARKER = "[memoryapp:compact]"
MAX_CHARS = 2000

COMPACT_SYSTEM = f"""{COMPACT_MARKER}
The conversation between <conversation> and </conversation> is the beginning of a chat that no longer fits
the model's window; <earlier> holds the summary of what came before it, if any. Write one summary of all of
it, at most 150 words, that lets the assistant go on with the chat: what the user said, asked and decided,
keeping names, numbers, places and products. Write in the user's language (Chinese stays Chinese). Plain
text only, no preamble. {quoted("earlier", "conversation")}"""


def build_compact_messages(earlier: str, conversation: Sequence[dict]) -> list[dict]:
    earlier_block = block("earlier", earlier) + "\n" if earlier else ""
    return [
        {"role": "system", "content": COMPACT_SYSTEM},
        {"role": "user", "content": earlier_block + render_conversation(conversation)},
    ]


def compact_summary(earlier: str, messages: list[dict], llm: LLMProvider | None) -> str:
    if llm is None:
        return defaults.compact_summary(earlier, messages)
    raw = llm.complete(build_compact_messages(earlier, messages))
    text = " ".join(raw.split())
    if not text:
        raise ProviderOutputError("The language model returned an empty summary.", raw=raw, task="compact")
    return text[:MAX_CHARS]
