"""Task: an episode, what a chat settled or told beyond its typed memories, for consolidation.

An episode is kept only for what the memories learnt from the same chat (`learnt`) do not hold: a plan
discussed, a decision, an event. With a model: one `complete` call that is shown those memories and
answers NOTHING when the chat adds nothing beyond them (then no episode); whitespace folded, at most
1,000 characters, cut at a sentence's end, never inside one; an empty answer is a ProviderOutputError.
Nothing the user said: no call, no episode. Without a model: episode_rules.py, the user's own sentences
that carry a plan, decision or event cue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memoryapp.lib.sentences import sentence_spans
from memoryapp.providers.llm.errors import ProviderOutputError

from . import episode_rules
from .delimiters import format_memories_block, has_user_turn, quoted, render_conversation

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from memoryapp.providers.llm.base import LLMProvider

SUMMARISE_MARKER = "[memoryapp:summarise]"
MAX_CHARS = 1000
NOTHING = "NOTHING"  # the model's answer when the chat adds nothing beyond its typed memories

SUMMARISE_SYSTEM = f"""{SUMMARISE_MARKER}
Write the episode of the conversation between <conversation> and </conversation>: in one to three
whole sentences, what it settled or told that someone would want to recall later: a plan discussed,
a decision taken, an event that happened. Leave out what the memories between <memories> and
</memories> already say (they were learnt from this conversation) and what the assistant explained.
If the conversation adds nothing beyond those memories (small talk, a question answered, only facts
or preferences about the user), answer exactly {NOTHING}.
Write in the user's language (Chinese stays Chinese). Plain text only, no preamble.
{quoted("memories", "conversation")}"""


def build_summary_messages(conversation: Sequence[dict], learnt: Iterable[str] = ()) -> list[dict]:
    return [
        {"role": "system", "content": SUMMARISE_SYSTEM},
        {"role": "user", "content": f"{format_memories_block(learnt)}\n{render_conversation(conversation)}"},
    ]


def summarise_episode(messages: list[dict], llm: LLMProvider | None, learnt: Iterable[str] = ()) -> str:
    """The chat's episode, in the user's language; "" when it adds nothing beyond `learnt`, the
    contents of the typed memories learnt from it."""
    learnt = list(learnt)
    if llm is None:
        return episode_rules.episode_text(messages, learnt)
    if not has_user_turn(messages):
        return ""
    raw = llm.complete(build_summary_messages(messages, learnt))
    text = " ".join(raw.split())
    if not text:
        raise ProviderOutputError("The language model returned an empty summary.", raw=raw, task="summarise")
    if text.strip(" .。\"'`").upper() == NOTHING:
        return ""
    return whole_sentences(text, MAX_CHARS)


def whole_sentences(text: str, limit: int) -> str:
    """`text` up to `limit` characters, cut after the last sentence that fits (a single overlong
    sentence is kept to the limit: better than nothing)."""
    if len(text) <= limit:
        return text
    ends = [span.end for span in sentence_spans(text) if span.end <= limit]
    return text[: ends[-1]].strip() if ends else text[:limit]
