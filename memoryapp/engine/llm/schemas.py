"""What the language model must return for extraction, validated once at the boundary and trusted after.

The schemas are handed to the provider's `complete_json(messages, schema)`; the rule-based defaults
(defaults.py) build the same objects, so the pipeline cannot tell which produced them.

Numbers are strict (no "0.7" strings, no NaN/inf), bounds are enforced, unknown keys are
ignored (models like to add "explanation" fields; dropping them costs nothing, while a
retry costs a call). Enum values are matched case-insensitively for the same reason.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from memoryapp.models import (  # one list of kinds, one "same memory" rule
    MAX_CUE_LENGTH,
    MAX_CUES,
    MemoryKind,
    normalise_content,
)

__all__ = [
    "Candidate",
    "CandidateWithNeighbours",
    "Decision",
    "DecisionAction",
    "DecisionResult",
    "ExtractionResult",
    "MemoryKind",
    "Neighbour",
    "normalise_content",
]

MAX_CANDIDATES = 20


class DecisionAction(str, Enum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    BOOST = "BOOST"
    DELETE = "DELETE"
    SKIP = "SKIP"


Content = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000, strict=True)]
Unit = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False, strict=True)]
# A situation in which the memory would help (Memory.cues), as the extraction and cue prompts ask for it.
Cue = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CUE_LENGTH, strict=True)]
Cues = Annotated[tuple[Cue, ...], Field(max_length=MAX_CUES)]


class _Schema(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


def _casefold_enum(value: Any, upper: bool) -> Any:
    if isinstance(value, str):
        value = value.strip()
        return value.upper() if upper else value.lower()
    return value


class Candidate(_Schema):
    content: Content
    kind: MemoryKind
    importance: Unit
    confidence: Unit
    # Situations in which it would help; they ride in the extraction call (no call of their own).
    cues: Cues = ()

    @field_validator("kind", mode="before")
    @classmethod
    def _kind_case(cls, value: Any) -> Any:
        return _casefold_enum(value, upper=False)


class ExtractionResult(_Schema):
    model_config = ConfigDict(title="extraction")  # names the task in the provider's errors and logs

    candidates: list[Candidate] = Field(default_factory=list, max_length=MAX_CANDIDATES)

    @model_validator(mode="after")
    def _no_episodes(self) -> ExtractionResult:
        # Episodes are written by consolidation, never proposed by extraction.
        for i, candidate in enumerate(self.candidates):
            if candidate.kind is MemoryKind.EPISODE:
                raise ValueError(f"candidates.{i}.kind: 'episode' is not allowed in extraction")
        return self


class Neighbour(_Schema):
    id: Annotated[int, Field(strict=True)]
    content: str
    kind: MemoryKind
    similarity: float | None = None  # cosine to the candidate, where the caller measured it


class CandidateWithNeighbours(_Schema):
    candidate: Candidate
    neighbours: list[Neighbour] = Field(default_factory=list)


class Decision(_Schema):
    candidate_index: Annotated[int, Field(ge=0, strict=True)]
    action: DecisionAction
    target_id: Annotated[int, Field(strict=True)] | None = None
    reason: str = ""
    # ADD, but it may replace this neighbour: the user is asked (engine/memories/conflicts.py).
    ask_about: Annotated[int, Field(strict=True)] | None = None

    @field_validator("action", mode="before")
    @classmethod
    def _action_case(cls, value: Any) -> Any:
        return _casefold_enum(value, upper=True)

    @model_validator(mode="after")
    def _target_when_needed(self) -> Decision:
        needs_target = self.action in (DecisionAction.UPDATE, DecisionAction.BOOST, DecisionAction.DELETE)
        if needs_target and self.target_id is None:
            raise ValueError(f"target_id is required for {self.action.value}")
        return self


class DecisionResult(_Schema):
    """One decision per candidate, ordered by candidate_index (see `check_against`)."""

    model_config = ConfigDict(title="decisions")

    decisions: list[Decision] = Field(default_factory=list)

    def check_against(self, items: list[CandidateWithNeighbours]) -> DecisionResult:
        """Reject answers that skip a candidate, repeat one, or target a memory not shown for it.

        The target check matters: a hallucinated id must never reach the write path.
        Returns a copy sorted by candidate_index.
        """
        seen: set[int] = set()
        for decision in self.decisions:
            i = decision.candidate_index
            if i >= len(items):
                raise ValueError(f"candidate_index {i} is out of range (there are {len(items)} candidates)")
            if i in seen:
                raise ValueError(f"candidate_index {i} has more than one decision")
            seen.add(i)
            allowed = {n.id for n in items[i].neighbours}
            if decision.target_id is not None and decision.target_id not in allowed:
                raise ValueError(
                    f"candidate {i}: target_id {decision.target_id} is not one of its neighbours {sorted(allowed)}"
                )
            if decision.ask_about is not None and decision.ask_about not in allowed:
                raise ValueError(
                    f"candidate {i}: ask_about {decision.ask_about} is not one of its neighbours {sorted(allowed)}"
                )
        missing = sorted(set(range(len(items))) - seen)
        if missing:
            raise ValueError(f"no decision for candidate_index {missing}")
        return DecisionResult(decisions=sorted(self.decisions, key=lambda d: d.candidate_index))
