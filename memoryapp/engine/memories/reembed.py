"""Re-embedding every memory with another model (`manage.py reembed`), while the app keeps answering.

The new vectors go into a side column (`embedding_next`, the new dimension), in batches through the
one batch path of imports (engine/memories/bulk.py: `embedded_batches`); a row whose
side vector is still empty is what is left, so an interrupted run resumes where it stopped. Recall
keeps reading `embedding`, the old vectors, all along. When every row has its new vector, one
transaction (the table locked against writes for its duration) embeds rows written meanwhile, drops the
old column and its index, renames the side column and builds the HNSW index for the new dimension; the
cues' vectors (Memory.cue_embedding) are emptied with it and embedded again once the lock is released.
Then the app must run with the new model's settings. Each user's open pages hear one `MemoryEventType.BATCH`
event with the count of their memories re-embedded, not one per memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import connection, transaction

from memoryapp.models import EventAction
from memoryapp.providers.embeddings.base import Embedder

from .bulk import embedded_batches
from .cue_fields import cue_text
from .write import announce

TABLE = "memoryapp_memory"
SIDE = "embedding_next"
INDEX = "memory_embedding_hnsw"  # as migration 0001 names it
CUE_INDEX = "memory_cue_embedding_hnsw"  # as migration 0007 names it


@dataclass
class ReembedReport:
    embedded: int = 0
    total: int = 0
    swapped: bool = False


def stored_dimension() -> int | None:
    """The dimension of the vectors recall reads now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'embedding'", [TABLE]
        )
        row = cursor.fetchone()
    return row[0] if row and row[0] > 0 else None


def _side_dimension() -> int | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = %s::regclass AND attname = %s AND NOT attisdropped",
            [TABLE, SIDE],
        )
        row = cursor.fetchone()
    return row[0] if row else None


def _prepare_side_column(dim: int) -> None:
    """Create the side column for `dim`; one left by a run for another dimension is started afresh."""
    existing = _side_dimension()
    with connection.cursor() as cursor:
        # Deferred foreign-key checks of rows this transaction wrote would forbid ALTER TABLE: run them now.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        if existing is not None and existing != dim:
            cursor.execute(f"ALTER TABLE {TABLE} DROP COLUMN {SIDE}")
            existing = None
        if existing is None:
            cursor.execute(f"ALTER TABLE {TABLE} ADD COLUMN {SIDE} halfvec({dim})")


def _counts() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FILTER (WHERE {SIDE} IS NOT NULL), count(*) FROM {TABLE}")
        done, total = cursor.fetchone()
    return done, total


def _pending_ids() -> list[int]:
    """The rows still without a new vector, oldest first."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {TABLE} WHERE {SIDE} IS NULL ORDER BY id")
        return [memory_id for (memory_id,) in cursor.fetchall()]


def _contents(ids: Sequence[int]) -> list[str]:
    """The words of these rows, in their order ("" for one purged since: its UPDATE then finds nothing)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, content FROM {TABLE} WHERE id = ANY(%s)", [list(ids)])
        found = dict(cursor.fetchall())
    return [found.get(memory_id, "") for memory_id in ids]


def _embed_rows(
    embedder: Embedder, ids: list[int], batch_size: int, progress: Callable[[int, int], None] | None = None
) -> int:
    """Give `ids` their new vectors through the one batch path (engine/memories/bulk.py); returns how many.
    Each batch's UPDATE commits on its own (outside the final swap), so a run stopped midway resumes."""
    for batch, vectors in embedded_batches(ids, _contents, embedder=embedder, batch_size=batch_size, progress=progress):
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {TABLE} SET {SIDE} = %s::halfvec WHERE id = %s",
                [(str(vector), memory_id) for memory_id, vector in zip(batch, vectors)],
            )
    return len(ids)


def _embed_cues(embedder: Embedder, batch_size: int) -> None:
    """Give the rows that have cues their cue vectors from `embedder`, through the same batch path."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {TABLE} WHERE cue_embedding IS NULL AND cardinality(cues) > 0 ORDER BY id")
        ids = [memory_id for (memory_id,) in cursor.fetchall()]

    def cue_texts(batch: Sequence[int]) -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id, cues FROM {TABLE} WHERE id = ANY(%s)", [list(batch)])
            found = dict(cursor.fetchall())
        return [cue_text(found.get(memory_id) or []) for memory_id in batch]

    for batch, vectors in embedded_batches(ids, cue_texts, embedder=embedder, batch_size=batch_size):
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {TABLE} SET cue_embedding = %s::halfvec WHERE id = %s",
                [(str(vector), memory_id) for memory_id, vector in zip(batch, vectors)],
            )


def reembed(
    embedder: Embedder, *, batch_size: int = 256, progress: Callable[[int, int], None] | None = None
) -> ReembedReport:
    """Give every memory (every user, every status and version) a vector from `embedder`, then switch."""
    _prepare_side_column(embedder.dim)
    report = ReembedReport()
    already, report.total = _counts()
    if progress:
        progress(already, report.total)
    ids = _pending_ids()
    report.embedded = _embed_rows(
        embedder,
        ids,
        batch_size,
        progress and (lambda done, _total: progress(min(already + done, report.total), report.total)),
    )
    with transaction.atomic():
        with connection.cursor() as cursor:
            # Writes wait while the columns change; reads (recall) go on until the rename commits.
            cursor.execute(f"LOCK TABLE {TABLE} IN SHARE ROW EXCLUSIVE MODE")
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        _embed_rows(embedder, _pending_ids(), batch_size)  # rows written since the list was taken
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {INDEX}")
            cursor.execute(f"ALTER TABLE {TABLE} DROP COLUMN embedding")
            cursor.execute(f"ALTER TABLE {TABLE} RENAME COLUMN {SIDE} TO embedding")
            cursor.execute(
                f"CREATE INDEX {INDEX} ON {TABLE} USING hnsw (embedding halfvec_cosine_ops) "
                "WITH (m = 16, ef_construction = 64)"
            )
            # The cues' vectors were the old model's: emptied here (recall then takes the content's
            # cosine alone) and embedded again below, after the lock is released.
            cursor.execute(f"DROP INDEX IF EXISTS {CUE_INDEX}")
            cursor.execute(f"ALTER TABLE {TABLE} DROP COLUMN cue_embedding")
            cursor.execute(f"ALTER TABLE {TABLE} ADD COLUMN cue_embedding halfvec({embedder.dim})")
            cursor.execute(
                f"CREATE INDEX {CUE_INDEX} ON {TABLE} USING hnsw (cue_embedding halfvec_cosine_ops) "
                "WITH (m = 16, ef_construction = 64)"
            )
            # Inferred cues came from the situation bank of the old model's vectors: gone with them, and
            # inferred again (manage.py cues) once `manage.py train` has built the bank for the new one.
            cursor.execute(
                f"UPDATE {TABLE} SET cues = '{{}}', search_cues = '', cues_inferred = false WHERE cues_inferred"
            )
    _embed_cues(embedder, batch_size)
    _, report.total = _counts_after_swap()
    report.swapped = True
    _announce_per_user()
    return report


def _announce_per_user() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT user_id, count(*) FROM {TABLE} GROUP BY user_id")
        for user_id, count in cursor.fetchall():
            announce(user_id, None, EventAction.UPDATED, count=count)


def _counts_after_swap() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FILTER (WHERE embedding IS NOT NULL), count(*) FROM {TABLE}")
        return cursor.fetchone()
