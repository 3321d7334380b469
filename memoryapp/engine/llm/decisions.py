"""Task: what each candidate memory does to its nearest existing memories (extraction's second call).

ADD, UPDATE (supersede), BOOST, DELETE (soft) or SKIP, one decision per candidate, whose target is
always one of that candidate's own neighbours: an answer that targets anything else fails validation
and goes back to the model with the reason, so a made-up id never reaches the write path. With no
neighbour anywhere there is nothing to decide and no call; without a model, the rules in defaults.py.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pydantic import model_validator

from . import defaults
from .delimiters import block, quoted
from .schemas import CandidateWithNeighbours, Decision, DecisionAction, DecisionResult, normalise_content

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memoryapp.providers.llm.base import LLMProvider

DECIDE_MARKER = "[memoryapp:decide]"

DECIDE_SYSTEM = f"""{DECIDE_MARKER}
You maintain a user's long-term memory. Each candidate memory comes with its nearest existing
memories, each with an id. Decide for every candidate:
- ADD: new information that no existing memory covers.
- UPDATE: it replaces an existing memory that is now outdated or contradicted; target_id is that memory.
- BOOST: an existing memory already says the same thing; target_id is that memory.
- DELETE: the user says an existing memory is no longer true and nothing replaces it; target_id is it.
- SKIP: not worth storing, or a duplicate that adds nothing.
target_id must be one of that candidate's own neighbour ids. Give exactly one decision per candidate.

The candidates and memories are between <candidates> and </candidates>. {quoted("candidates")}

Answer with only a JSON object:
{{"decisions": [{{"candidate_index": 0, "action": "ADD", "target_id": null, "reason": "short reason"}}]}}"""


def build_decision_messages(items: Sequence[CandidateWithNeighbours]) -> list[dict]:
    payload = [
        {
            "candidate_index": i,
            "content": item.candidate.content,
            "kind": item.candidate.kind.value,
            "neighbours": [{"id": n.id, "content": n.content, "kind": n.kind.value} for n in item.neighbours],
        }
        for i, item in enumerate(items)
    ]
    return [
        {"role": "system", "content": DECIDE_SYSTEM},
        {"role": "user", "content": block("candidates", json.dumps(payload, ensure_ascii=False, indent=1))},
    ]


def decide(items: list[CandidateWithNeighbours], llm: LLMProvider | None) -> DecisionResult:
    """One decision per candidate, sorted by candidate_index, checked against `items`; raises ProviderError
    when the model fails, ValueError when the rules' answer does not fit the candidates."""
    if llm is None:
        return defaults.decide(items).check_against(items)
    if not any(item.neighbours for item in items):
        return _decide_without_neighbours(items)  # nothing to compare against: no call
    decided = llm.complete_json(build_decision_messages(items), answer_schema(items)).check_against(items)
    return _asked_where_the_defaults_disagree(decided, defaults.decide(items))


def _asked_where_the_defaults_disagree(decided: DecisionResult, default: DecisionResult) -> DecisionResult:
    """A model that adds a statement as new, where the no-model default sees it replacing a memory (or would
    ask about one), leaves two versions side by side with nothing said: the user is asked instead, as without
    a model (engine/memories/conflicts.py). The model's own replacements stand."""
    hints = {d.candidate_index: d for d in default.decisions}
    decisions = []
    for decision in decided.decisions:
        hint = hints.get(decision.candidate_index)
        doubt = None
        if decision.action is DecisionAction.ADD and decision.ask_about is None and hint is not None:
            doubt = hint.target_id if hint.action is DecisionAction.UPDATE else hint.ask_about
        decisions.append(decision.model_copy(update={"ask_about": doubt}) if doubt is not None else decision)
    return DecisionResult(decisions=decisions)


def answer_schema(items: list[CandidateWithNeighbours]) -> type[DecisionResult]:
    """DecisionResult that also fails validation when it does not fit these candidates (the model is told why)."""

    class DecisionsForCandidates(DecisionResult):
        @model_validator(mode="after")
        def _fits_the_candidates(self) -> DecisionsForCandidates:
            self.check_against(items)
            return self

    return DecisionsForCandidates


def _decide_without_neighbours(items: list[CandidateWithNeighbours]) -> DecisionResult:
    """ADD each candidate, SKIP repeats within the batch."""
    seen: set[str] = set()
    decisions = []
    for i, item in enumerate(items):
        key = normalise_content(item.candidate.content)
        if key in seen:
            decisions.append(Decision(candidate_index=i, action=DecisionAction.SKIP, reason="repeated in this batch"))
        else:
            seen.add(key)
            decisions.append(Decision(candidate_index=i, action=DecisionAction.ADD, reason="no similar memory"))
    return DecisionResult(decisions=decisions)
