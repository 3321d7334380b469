"""The cue job: cues for the memories written without them, batched, when a model is available.

Memories written by the page, the API, an import or offline extraction have no cues (Memory.cues) and
`cues_written_at` NULL. This pass takes a user's such memories in batches of CUE_BATCH, asks the model
once per batch (engine/llm/cues.py), and stores what it wrote with its vector (the secrets rule applies:
a cue that holds one is dropped). A memory the model gave nothing for is dated all the same, so it is
not asked about again. Progress goes to the user's open pages (`MemoryEventType.PROGRESS`, job "cues"). One pass
per user at a time: a second one started meanwhile finds the user's lock taken and returns.
No model: the memories written with no cues have the situation bank's (engine/learned/situations.py),
inferred when they were written; `infer_missing_cues` gives them to those written before it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from functools import partial

from django.db import connection, transaction
from django.utils import timezone

from memoryapp.events import publish_progress
from memoryapp.models import Memory, MemoryStatus

from ..llm import CONFIGURED, ModelChoice, resolve
from ..llm.cues import CUE_BATCH, write_cues
from ..memories.cue_fields import cue_fields, embed_cues
from ..sensitive import contains_sensitive

log = logging.getLogger(__name__)

CUE_JOB = "cues"  # the progress events' job name
_LOCK_NAMESPACE = 7302  # pg_try_advisory_lock(int, int): this namespace, the user id


def waiting(user_id: int | None = None):
    """Current memories no model has written cues for yet (of one user, or everyone's)."""
    rows = Memory.objects.filter(status=MemoryStatus.ACTIVE, valid_until__isnull=True, cues_written_at__isnull=True)
    return rows if user_id is None else rows.filter(user_id=user_id)


def users_waiting() -> list[int]:
    return sorted(set(waiting().values_list("user_id", flat=True)))


@contextlib.contextmanager
def _only_pass(user_id: int) -> Iterator[bool]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [_LOCK_NAMESPACE, user_id])
        got = cursor.fetchone()[0]
    try:
        yield got
    finally:
        if got:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [_LOCK_NAMESPACE, user_id])


def write_missing_cues(
    user_id: int,
    llm: ModelChoice = CONFIGURED,
    *,
    batch: int = CUE_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Write cues for the user's memories that lack them; returns how many memories got some.
    Raises ProviderError when the model fails (what was written before stays)."""
    provider = resolve(llm)
    if provider is None:
        return 0
    with _only_pass(user_id) as alone:
        if not alone:
            return 0
        total = waiting(user_id).count()
        if progress is None and total:
            progress = partial(publish_progress, user_id, CUE_JOB)
        done = written = 0
        while True:
            rows = list(waiting(user_id).defer("embedding", "cue_embedding", "search_vector").order_by("id")[:batch])
            if not rows:
                return written
            answers = write_cues(rows, provider)
            written += _store(rows, answers)
            done += len(rows)
            if progress:
                progress(min(done, total), max(total, done))


def without_cues(user_id: int | None = None):
    """Current memories with no cues at all, none inferred, that nobody chose to leave empty: written
    before the situation bank (INFER_CUES) or while it was off."""
    return waiting(user_id).filter(cues=[], cues_inferred=False, embedding__isnull=False)


def infer_missing_cues(user_id: int | None = None, *, batch: int = 500, progress=None) -> int:
    """Give the memories `without_cues` the cues the situation bank infers from their stored vectors (no
    model, no embedding); returns how many got some. None when no bank is available (0)."""
    from ..learned.situations import bank, infer
    from ..memories.cue_fields import inferred_fields

    if bank() is None:
        return 0
    total, done, last = without_cues(user_id).count(), 0, 0
    while True:
        rows = list(without_cues(user_id).filter(pk__gt=last).only("id", "content", "embedding").order_by("id")[:batch])
        if not rows:
            return done
        guesses = infer([list(m.embedding) for m in rows], [m.content for m in rows])
        changed = []
        for memory, guess in zip(rows, guesses):
            if guess is not None:
                for name, value in inferred_fields(guess).items():
                    setattr(memory, name, value)
                changed.append(memory)
        with transaction.atomic():
            Memory.objects.bulk_update(
                changed, ["cues", "cue_embedding", "search_cues", "cues_written_at", "cues_inferred"]
            )
        done += len(changed)
        last = rows[-1].pk
        if progress:
            progress(min(done, total), total)


def _store(rows: list[Memory], answers: dict[int, tuple[str, ...]]) -> int:
    cue_lists = [[cue for cue in answers.get(m.pk, ()) if not contains_sensitive(cue)] for m in rows]
    vectors = embed_cues(cue_lists)
    now = timezone.now()
    with transaction.atomic():
        # Only rows still waiting: a person who wrote cues meanwhile keeps theirs.
        still = set(waiting().filter(pk__in=[m.pk for m in rows]).select_for_update().values_list("pk", flat=True))
        changed = []
        written = 0
        for memory, cues, vector in zip(rows, cue_lists, vectors):
            if memory.pk not in still:
                continue
            if cues or not memory.cues_inferred:
                for name, value in cue_fields(cues, vector, written=now).items():
                    setattr(memory, name, value)
                written += bool(cues)
            else:  # the model had nothing to add: the inferred cues stay, dated so it is not asked again
                memory.cues_written_at = now
            changed.append(memory)
        Memory.objects.bulk_update(
            changed, ["cues", "cue_embedding", "search_cues", "cues_written_at", "cues_inferred"]
        )
    return written
