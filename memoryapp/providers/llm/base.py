"""The port every language-model backend implements: a model, not a domain.

A provider completes messages (whole, as validated JSON, or streamed) and knows nothing of memories:
what to ask, how to read the answer and what to do with no model at all live in the engine, one module
per task (memoryapp/engine/llm/). Embedders are the other half of the seam (providers/embeddings:
`embed(texts)`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


@runtime_checkable
class LLMProvider(Protocol):
    """Messages are OpenAI-style dicts: {"role": "system"|"user"|"assistant", "content": str}.

    Every method raises `ProviderError` (see errors.py) and nothing else on failure.
    """

    name: str

    def complete(self, messages: list[dict]) -> str:
        """The model's whole answer, as text."""
        ...

    def complete_json(self, messages: list[dict], schema: type[T]) -> T:
        """The model's answer as a JSON object, validated against `schema` (a pydantic model). An answer
        that fails validation is sent back with the reason, a few times, before `ProviderOutputError`."""
        ...

    def stream(self, messages: list[dict]) -> Iterator[str]:
        """The answer as text deltas, in order; joined they equal what `complete` would return."""
        ...
