"""What bench.extraction reports: pure functions over what an extractor produced for labelled windows.

An extracted memory matches an expected one when it holds at least one of the expected words (case and
width folded); each expected memory takes its best match (most words), each extracted memory serves
one expected memory at most.
- precision: extracted memories that match an expected one / all extracted (a memory from a question,
  chit-chat or a secret counts against it);
- recall: expected memories matched / all expected;
- kind_accuracy: matched pairs whose kind agrees;
- detail_retention: over expected memories, the share of their words that survive in the match (0 when
  unmatched);
- update_detection: expected updates whose match superseded the right existing memory;
- wrong_replacements: extracted memories that superseded an existing memory they should not have (not the
  one their match names, or any when unmatched) / all extracted: the user's memory lost;
- update_or_asked: expected updates whose match superseded the right memory or asked the user whether it
  replaces it (a ChangeQuestion, engine/memories/conflicts.py);
- questions: extracted memories that asked about a memory / all extracted (how often the user is asked).
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from .extraction_data import Expected


@dataclass(frozen=True)
class Produced:
    content: str
    kind: str
    supersedes: tuple[str, ...] = ()  # keys of the existing memories it replaced
    asked: tuple[str, ...] = ()  # keys of the existing memories the user is asked it may replace


@dataclass(frozen=True)
class WindowOutcome:
    window_id: str
    split: str
    language: str
    category: str
    expected: tuple[Expected, ...]
    produced: tuple[Produced, ...]
    source: str = "windows"


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def words_kept(expected: Expected, produced: Produced) -> int:
    content = _fold(produced.content)
    return sum(1 for word in expected.must_contain if _fold(word) in content)


def match(expected: tuple[Expected, ...], produced: tuple[Produced, ...]) -> list[tuple[Expected, Produced | None]]:
    """Each expected memory with its best unused match (greedy, most words first)."""
    scored = sorted(
        ((words_kept(e, p), i, j) for i, e in enumerate(expected) for j, p in enumerate(produced)), reverse=True
    )
    taken_e, taken_p, pairs = set(), set(), {}
    for kept, i, j in scored:
        if kept == 0 or i in taken_e or j in taken_p:
            continue
        taken_e.add(i)
        taken_p.add(j)
        pairs[i] = produced[j]
    return [(e, pairs.get(i)) for i, e in enumerate(expected)]


def summarise(outcomes: Iterable[WindowOutcome]) -> dict:
    outcomes = list(outcomes)
    produced = sum(len(o.produced) for o in outcomes)
    expected = matched = kind_ok = updates = updates_ok = wrong = asked_ok = 0
    retention = 0.0
    for outcome in outcomes:
        pairs = match(outcome.expected, outcome.produced)
        allowed = {id(got): want.supersedes for want, got in pairs if got is not None}
        wrong += sum(1 for p in outcome.produced if any(s != allowed.get(id(p)) for s in p.supersedes))
        for want, got in pairs:
            expected += 1
            if want.supersedes:
                updates += 1
            if got is None:
                continue
            matched += 1
            kind_ok += got.kind == want.kind
            retention += words_kept(want, got) / len(want.must_contain)
            updates_ok += bool(want.supersedes) and want.supersedes in got.supersedes
            asked_ok += bool(want.supersedes) and want.supersedes in (*got.supersedes, *got.asked)

    def share(numerator: float, denominator: int) -> float | None:
        return round(numerator / denominator, 4) if denominator else None

    return {
        "windows": len(outcomes),
        "expected": expected,
        "produced": produced,
        "precision": share(matched, produced),
        "recall": share(matched, expected),
        "kind_accuracy": share(kind_ok, matched),
        "detail_retention": share(retention, expected),
        "update_detection": share(updates_ok, updates),
        "wrong_replacements": share(wrong, produced),
        "update_or_asked": share(asked_ok, updates),
        "questions": share(sum(1 for o in outcomes for p in o.produced if p.asked), produced),
    }


def grouped(outcomes: Iterable[WindowOutcome], attribute: str) -> dict[str, dict]:
    groups: dict[str, list[WindowOutcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[getattr(outcome, attribute)].append(outcome)
    return {name: summarise(group) for name, group in sorted(groups.items())}
