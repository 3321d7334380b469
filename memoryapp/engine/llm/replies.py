"""Task: the chat reply to a prompt that engine/chat/context.py built (system prompt, memories, history).

With a model: its answer, whole (`complete`, the REST API) or as text deltas (`stream`, the chat
page). Without one: defaults.py says that no model is configured and lists the memories the prompt
carried, in the language of the user's message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from . import defaults

if TYPE_CHECKING:
    from memoryapp.providers.llm.base import LLMProvider


def reply(prompt: list[dict], llm: LLMProvider | None) -> str:
    if llm is None:
        return defaults.reply(prompt)
    return llm.complete(prompt)


def stream_reply(prompt: list[dict], llm: LLMProvider | None) -> Iterator[str]:
    """Text deltas in order; joined they equal `reply`. Raises ProviderError while iterating."""
    if llm is None:
        return defaults.stream_reply(prompt)
    return llm.stream(prompt)
