"""The port every language-model backend implements (OpenAI-compatible, offline, test doubles)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .schemas import CandidateWithNeighbours, DecisionResult, ExtractionResult


@runtime_checkable
class LLMProvider(Protocol):
    """Messages are OpenAI-style dicts: {"role": "system"|"user"|"assistant", "content": str}.

    Every method raises `ProviderError` (see errors.py) and nothing else on failure.
    """

    name: str
    offline: bool  # True: no model behind it; the UI labels replies as such

    def chat(self, messages: list[dict]) -> str:
        """The whole reply to a chat turn."""
        ...

    def stream_chat(self, messages: list[dict]) -> Iterator[str]:
        """The reply as text deltas, in order; joined they equal what `chat` would return."""
        ...

    def extract(self, messages: list[dict]) -> ExtractionResult:
        """Candidate memories about the user from conversation turns (one model call, more only to fix bad JSON)."""
        ...

    def decide(self, items: list[CandidateWithNeighbours]) -> DecisionResult:
        """One decision per candidate against its neighbours, sorted by candidate_index (one call, as above)."""
        ...

    def summarise(self, messages: list[dict]) -> str:
        """One or two sentences on what the conversation was about, in the user's language."""
        ...

    def compact(self, earlier: str, messages: list[dict]) -> str:
        """A rolling summary of a chat's beginning: `earlier` (the previous summary) and `messages` folded
        into one text the chat can go on from, in the user's language."""
        ...
