"""Forgetting: the nightly pass that lets unused memories fade, and promotes the ones that keep mattering.

    relevance = exp(-rate x days since last access or creation) x (1 + ln(1 + accesses)) x importance

rate is 0.01 a day (episodes: 0.1, and an episode is forgotten after 14 days). Below 0.1 a memory is
forgotten (restorable), below 0.3 its importance is lowered; core memories never decay. Working memories
past PROMOTE_RELEVANCE are reviewed for core in one batched model call (engine/llm/promotion.py; without a
model, by rule). Every change
goes through engine.memories.write, so it is a MemoryEvent and a `memory.*` event. One pass per user per day.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from memoryapp.models import Actor, EventAction, Lifecycle, Memory, MemoryKind, MemoryStatus
from memoryapp.pipeline.models import ForgettingRun

from .. import jobs
from ..llm import CONFIGURED, ModelChoice, promotion, resolve
from ..memories import write

log = logging.getLogger(__name__)

DECAY_PER_DAY = 0.01
EPISODE_DECAY_PER_DAY = 0.1
EPISODE_MAX_DAYS = 14
FORGET_BELOW = 0.1
DEMOTE_BELOW = 0.3
DEMOTE_FACTOR = 0.8  # importance x 0.8 each night it stays low
PROMOTE_RELEVANCE = 1.5  # e.g. importance 0.8 used 3 times this week


class Change:
    FORGET = "forget"
    DEMOTE = "demote"
    PROMOTE = "promote"


@dataclass(frozen=True)
class PlannedChange:
    memory_id: int
    user_id: int
    change: str
    relevance: float
    content: str
    importance: float  # after the change


def relevance(memory: Memory, now: datetime) -> float:
    since = memory.last_accessed_at or memory.created_at
    days = max(0.0, (now - since).total_seconds() / 86400)
    rate = EPISODE_DECAY_PER_DAY if memory.kind == MemoryKind.EPISODE else DECAY_PER_DAY
    return math.exp(-rate * days) * (1 + math.log(1 + memory.access_count)) * memory.importance


def judge(memory: Memory, now: datetime) -> tuple[str | None, float]:
    """What tonight's pass does to one memory, by the rules alone (promotion still needs the review)."""
    score = relevance(memory, now)
    if memory.lifecycle == Lifecycle.CORE:
        return None, score
    if memory.kind == MemoryKind.EPISODE:
        days = (now - (memory.last_accessed_at or memory.created_at)).total_seconds() / 86400
        if days > EPISODE_MAX_DAYS:
            return Change.FORGET, score
    if score < FORGET_BELOW:
        return Change.FORGET, score
    if score < DEMOTE_BELOW:
        return Change.DEMOTE, score
    if score >= PROMOTE_RELEVANCE and memory.kind != MemoryKind.EPISODE:
        return Change.PROMOTE, score
    return None, score


def plan(user_id: int, now: datetime, *, llm: ModelChoice = CONFIGURED) -> list[PlannedChange]:
    """Tonight's changes for one user, promotion review included; applies nothing (dry runs print this)."""
    current = Memory.objects.filter(user_id=user_id, status=MemoryStatus.ACTIVE, valid_until__isnull=True)
    changes, promotable = [], []
    for memory in current.order_by("id"):
        change, score = judge(memory, now)
        if change == Change.PROMOTE:
            promotable.append((memory, score))
        elif change == Change.FORGET:
            changes.append(PlannedChange(memory.pk, user_id, change, score, memory.content, memory.importance))
        elif change == Change.DEMOTE:
            lowered = round(memory.importance * DEMOTE_FACTOR, 4)
            changes.append(PlannedChange(memory.pk, user_id, change, score, memory.content, lowered))
    for memory, score in _review(promotable, llm):
        changes.append(PlannedChange(memory.pk, user_id, Change.PROMOTE, score, memory.content, memory.importance))
    return changes


def _review(promotable: list[tuple[Memory, float]], llm: ModelChoice) -> list[tuple[Memory, float]]:
    """One model call for the whole batch; without a model (or a failing one), the rule (engine/llm/promotion.py)."""
    if not promotable:
        return []
    chosen = {m.pk for m in promotion.review([m for m, _s in promotable], resolve(llm))}
    return [(m, s) for m, s in promotable if m.pk in chosen]


def apply(changes: list[PlannedChange], now: datetime) -> dict[str, int]:
    """Apply one user's planned changes with their day's run row: all or nothing, once per day."""
    counts = {Change.FORGET: 0, Change.DEMOTE: 0, Change.PROMOTE: 0}
    if not changes:
        return counts
    with transaction.atomic():
        for planned in changes:
            memory = Memory.objects.get(pk=planned.memory_id)
            note = f"relevance {planned.relevance:.3f}"
            if planned.change == Change.FORGET:
                write.forget_memory(memory, actor=Actor.FORGETTING, note=note)
            else:
                action = EventAction.PROMOTED if planned.change == Change.PROMOTE else EventAction.DEMOTED
                write.set_importance(memory, planned.importance, action=action, actor=Actor.FORGETTING, note=note)
            counts[planned.change] += 1
    return counts


def forget_user(
    user_id: int, now: datetime | None = None, *, llm: ModelChoice = CONFIGURED, dry_run: bool = False
) -> tuple[list[PlannedChange], bool]:
    """Run (or preview) one user's pass for `now`'s day. Returns the changes and whether they were applied."""
    now = now or timezone.now()
    day = timezone.localdate(now)
    if ForgettingRun.objects.filter(user_id=user_id, day=day).exists():
        return [], False
    changes = plan(user_id, now, llm=llm)
    if dry_run:
        return changes, False
    try:
        with transaction.atomic():
            run = ForgettingRun.objects.create(user_id=user_id, day=day)  # claims the day first
            counts = apply(changes, now)
            run.forgotten, run.demoted, run.promoted = (
                counts[Change.FORGET],
                counts[Change.DEMOTE],
                counts[Change.PROMOTE],
            )
            run.save(update_fields=["forgotten", "demoted", "promoted"])
    except IntegrityError:  # another worker took this day
        return [], False
    return changes, True


def users_with_memories() -> list[int]:
    return list(
        Memory.objects.filter(status=MemoryStatus.ACTIVE)
        .values_list("user_id", flat=True)
        .distinct()
        .order_by("user_id")
    )


def queue_all() -> int:
    """The nightly pass (beat, FORGET_HOUR): queue one pass per user who has memories; returns how many."""
    users = users_with_memories()
    for user_id in users:
        jobs.enqueue(jobs.Job.FORGET, user_id)
    return len(users)
