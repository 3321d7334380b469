"""The forgetting formula and its category rules, on unsaved memories at a frozen moment."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from memoryapp.engine.learning.forgetting import Change, judge, relevance
from memoryapp.models import Memory

NOW = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)


def _memory(
    days_old: float,
    *,
    importance: float = 0.5,
    accesses: int = 0,
    kind: str = "fact",
    lifecycle: str = "working",
    last_access_days: float | None = None,
) -> Memory:
    return Memory(
        content="x",
        kind=kind,
        lifecycle=lifecycle,
        importance=importance,
        access_count=accesses,
        created_at=NOW - timedelta(days=days_old),
        last_accessed_at=None if last_access_days is None else NOW - timedelta(days=last_access_days),
    )


def test_it_scores_by_the_documented_formula():
    memory = _memory(30, importance=0.8, accesses=3, last_access_days=10)
    assert math.isclose(relevance(memory, NOW), math.exp(-0.1) * (1 + math.log(4)) * 0.8)


def test_it_fades_an_unused_memory_to_demoted_then_forgotten():
    assert judge(_memory(1, importance=0.5), NOW)[0] is None  # 0.495
    assert judge(_memory(60, importance=0.5), NOW)[0] == Change.DEMOTE  # 0.274
    assert judge(_memory(200, importance=0.5), NOW)[0] == Change.FORGET  # 0.068


def test_it_counts_age_from_the_last_access():
    assert judge(_memory(400, importance=0.5, accesses=1, last_access_days=2), NOW)[0] is None


def test_it_never_decays_a_core_memory():
    assert judge(_memory(2000, importance=0.2, lifecycle="core"), NOW)[0] is None


def test_it_forgets_episodes_fast_and_after_fourteen_days_at_most():
    assert judge(_memory(1, kind="episode"), NOW)[0] is None
    assert judge(_memory(10, kind="episode"), NOW)[0] == Change.DEMOTE  # 0.5 x e^-1 = 0.18
    assert judge(_memory(15, importance=1.0, accesses=50, kind="episode", last_access_days=15), NOW)[0] == Change.FORGET


def test_it_proposes_well_used_memories_for_promotion():
    assert judge(_memory(5, importance=0.8, accesses=3), NOW)[0] == Change.PROMOTE
    assert judge(_memory(5, importance=0.9, accesses=30, kind="episode"), NOW)[0] is None
