"""Questions about two current memories that may disagree: "You said you moved to Valencia. Does 'I live
in Leeds' still hold?" Asked when the extractor is unsure a statement replaces a memory of its slot, and by
the nightly reviewer over memories of one slot; answered by the user (page, API, MCP): replace, or keep both.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils import timezone

from memoryapp.models import Actor, ChangeQuestion, Memory, MemoryStatus, QuestionStatus

from ..errors import MemoryConflict, MemoryNotFound, MemoryValidationError
from ..learned.slots import SINGLE_VALUED, new_value, slots_of
from . import write

if TYPE_CHECKING:
    from django.db.models import QuerySet

REVIEW_LIMIT = 200  # newest current memories of a user the nightly reviewer compares
ANSWERS = ("replace", "keep")


def ask(user_id: int, older: Memory, newer: Memory, *, asked_by: str = Actor.EXTRACTOR) -> ChangeQuestion | None:
    """Ask once per pair; None when the two are the same memory, another user's, or no longer current."""
    if older.pk == newer.pk or older.user_id != user_id or newer.user_id != user_id:
        return None
    if not (older.is_current and newer.is_current):
        return None
    shared = slots_of(older.content) & slots_of(newer.content)
    try:
        with transaction.atomic():
            question, _created = ChangeQuestion.objects.get_or_create(
                older=older,
                newer=newer,
                defaults={"user_id": user_id, "asked_by": asked_by, "slot": ",".join(sorted(shared))},
            )
    except IntegrityError:  # asked at the same moment elsewhere
        return ChangeQuestion.objects.filter(older=older, newer=newer).first()
    return question


def open_questions(user) -> QuerySet[ChangeQuestion]:
    """The user's questions still to answer whose two memories are both current."""
    current = {"status": MemoryStatus.ACTIVE, "valid_until__isnull": True}
    return (
        ChangeQuestion.objects.filter(user=user, status=QuestionStatus.OPEN)
        .filter(**{f"older__{k}": v for k, v in current.items()}, **{f"newer__{k}": v for k, v in current.items()})
        .select_related("older", "newer")
        .order_by("-created_at", "-id")
    )


def doubted_ids(user_id: int) -> dict[int, int]:
    """older memory id -> newer memory id, for every open question: the chat cites such an older memory only
    beside its newer rival."""
    return dict(open_questions(user_id).values_list("older_id", "newer_id"))


def get_question(user, question_id: int) -> ChangeQuestion:
    """The user's own question; another user's is not found, like one that never existed."""
    question = ChangeQuestion.objects.filter(pk=question_id, user=user).select_related("older", "newer").first()
    if question is None:
        raise MemoryNotFound(f"question {question_id} not found")
    return question


def resolve(question: ChangeQuestion, answer: str, *, actor: str = Actor.USER) -> ChangeQuestion:
    """`replace`: the newer replaces the older (kept in its history); `keep`: both stay current."""
    if answer not in ANSWERS:
        raise MemoryValidationError(f"answer must be one of: {', '.join(ANSWERS)}", "answer")
    with transaction.atomic():
        question = ChangeQuestion.objects.select_for_update().select_related("older", "newer").get(pk=question.pk)
        if question.status != QuestionStatus.OPEN:
            raise MemoryConflict(f"this question was already answered ({question.status})")
        if answer == "replace":
            write.replace_with(question.older, question.newer, actor=actor)
        question.status = QuestionStatus.REPLACED if answer == "replace" else QuestionStatus.KEPT
        question.decided_at = timezone.now()
        question.save(update_fields=["status", "decided_at"])
    return question


def review(user_id: int) -> list[ChangeQuestion]:
    """The nightly reviewer: current memories of one single-valued slot (where the user lives, works...)
    whose newer one gives it a new value, asked about once per pair."""
    memories = list(
        Memory.objects.filter(user_id=user_id, status=MemoryStatus.ACTIVE, valid_until__isnull=True)
        .exclude(kind="episode")
        .order_by("-valid_from", "-id")[:REVIEW_LIMIT]
    )
    by_slot: dict[str, list[Memory]] = {}
    for memory in memories:
        for slot in slots_of(memory.content) & SINGLE_VALUED:
            by_slot.setdefault(slot, []).append(memory)
    asked_before = set(ChangeQuestion.objects.filter(user_id=user_id).values_list("older_id", "newer_id"))
    asked = []
    for group in by_slot.values():
        for newer, older in combinations(group, 2):  # newest first: each pair as (newer, older)
            if (older.pk, newer.pk) in asked_before or not new_value(newer.content, older.content):
                continue
            question = ask(user_id, older, newer, asked_by=Actor.SYSTEM)
            if question is not None:
                asked_before.add((older.pk, newer.pk))
                asked.append(question)
    return asked
