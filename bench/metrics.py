"""Recall@k and latency summaries: pure functions over plain lists."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence


def covered_turns(retrieved: Sequence[int], k: int, turns_of: Mapping[int, Iterable[str]]) -> set[str]:
    """The dia_ids the top-k retrieved documents stand for (a deduplicated memory stands for several)."""
    found: set[str] = set()
    for doc in retrieved[:k]:
        found.update(turns_of.get(doc, ()))
    return found


def recall_at_k(retrieved: Sequence[int], gold: Iterable[str], k: int, turns_of: Mapping[int, Iterable[str]]) -> float:
    """Share of the gold turns found in the top k; gold with no turn is an error, not a 0 or a 1."""
    gold_set = set(gold)
    if not gold_set:
        raise ValueError("a question without gold turns has no recall")
    return len(gold_set & covered_turns(retrieved, k, turns_of)) / len(gold_set)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default), without numpy."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def latency_summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 50), 2),
        "p95": round(percentile(values, 95), 2),
        "mean": round(sum(values) / len(values), 2) if values else float("nan"),
        "n": len(values),
    }


class RecallTally:
    """Per-question recall@k, aggregated overall (mean over questions) and per category."""

    def __init__(self, ks: Sequence[int]):
        self.ks = tuple(sorted(ks))
        self._rows: list[tuple[int, dict[int, float]]] = []

    def add(
        self, category: int, retrieved: Sequence[int], gold: Iterable[str], turns_of: Mapping[int, Iterable[str]]
    ) -> dict[int, float]:
        gold = list(gold)
        row = {k: recall_at_k(retrieved, gold, k, turns_of) for k in self.ks}
        self._rows.append((category, row))
        return row

    def overall(self) -> dict[str, float]:
        return self._mean([row for _, row in self._rows])

    def by_category(self) -> dict[str, dict[str, float]]:
        groups: dict[int, list[dict[int, float]]] = defaultdict(list)
        for category, row in self._rows:
            groups[category].append(row)
        return {str(c): {**self._mean(rows), "n": len(rows)} for c, rows in sorted(groups.items())}

    def _mean(self, rows: list[dict[int, float]]) -> dict[str, float]:
        if not rows:
            return {str(k): float("nan") for k in self.ks}
        return {str(k): round(sum(row[k] for row in rows) / len(rows), 4) for k in self.ks}
