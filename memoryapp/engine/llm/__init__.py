"""What the engine asks of a language model, one module per task, and what runs without one.

Each task owns its prompt, the schema its answer is validated against, and its default: the rules
(defaults.py) that run when no model is configured, until a trained model replaces them.

    candidates.extract_candidates(messages, llm) -> ExtractionResult      memories a window proposes
    decisions.decide(items, llm) -> DecisionResult                        ADD / UPDATE / BOOST / DELETE / SKIP
    episodes.summarise_episode(messages, llm, learnt) -> str              what a chat settled beyond `learnt`, or ""
    chat_summary.compact_summary(earlier, messages, llm) -> str           a long chat's rolling summary
    replies.reply(prompt, llm) -> str, replies.stream_reply(prompt, llm)  the chat reply
    promotion.review(memories, llm) -> set of ids                         which memories become core
    cues.write_cues(memories, llm) -> {id: cues}                          cues for memories written without them

`llm` is a provider (memoryapp/providers/llm: `complete`, `complete_json`, `stream`) or None: no model.
Engine entry points take it as an argument defaulting to `CONFIGURED`, the model the settings name,
so tests and bench/ pass their own (as graphiti's search() receives its clients).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Literal, TypeAlias, Union

if TYPE_CHECKING:
    from memoryapp.providers.llm.base import LLMProvider


class _Configured(enum.Enum):
    CONFIGURED = "the model the settings configure"


CONFIGURED = _Configured.CONFIGURED  # the default of every entry point's `llm=`

# What an entry point's `llm=` accepts: a provider, None (no model: the defaults), or CONFIGURED.
ModelChoice: TypeAlias = Union["LLMProvider", None, Literal[_Configured.CONFIGURED]]


def resolve(llm: ModelChoice) -> LLMProvider | None:
    """The provider to use: `llm` itself, or for CONFIGURED the configured one (None when there is none)."""
    if llm is CONFIGURED:
        from memoryapp.providers.llm import get_llm

        return get_llm()
    return llm
