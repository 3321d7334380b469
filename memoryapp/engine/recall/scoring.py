"""Final score = similarity, importance and recency, weighted (DESIGN flow 3). Pure functions."""

from __future__ import annotations

from .config import ScoringConfig


def recency(valid_from: float | None, now: float, half_life_days: float) -> float:
    """1 for a memory from now, 0.5 one half-life ago; both times in seconds since the epoch (the statement
    sends a number, not a timestamp to parse: a recall scores a hundred or more candidates)."""
    if valid_from is None:
        return 0.0
    age_days = max(0.0, (now - valid_from) / 86400)
    return 0.5 ** (age_days / half_life_days)


def final_score(similarity: float, importance: float, recency_value: float, config: ScoringConfig) -> float:
    return config.similarity * similarity + config.importance * importance + config.recency * recency_value
