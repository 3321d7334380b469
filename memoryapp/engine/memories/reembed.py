"""Re-embedding every memory with another model (`manage.py reembed`), while the app keeps answering.

The new vectors go into a side column (`embedding_next`, the new dimension), in batches; a row whose
side vector is still empty is what is left, so an interrupted run resumes where it stopped. Recall
keeps reading `embedding`, the old vectors, all along. When every row has its new vector, one
transaction (the table locked against writes for its duration) embeds rows written meanwhile, drops the
old column and its index, renames the side column and builds the HNSW index for the new dimension; the
cues' vectors (Memory.cue_embedding) are emptied with it and embedded again once the lock is released.
Then the app must run with the new model's settings. Each user's open pages hear one `MemoryEventType.BATCH`
event with the count of their memories re-embedded, not one per memory.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection, transaction

from memoryapp.models import EventAction
from memoryapp.providers.embeddings.base import Embedder

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
        cursor.execute("SELECT atttypmod FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'embedding'",
                       [TABLE])
        row = cursor.fetchone()
    return row[0] if row and row[0] > 0 else None


def _side_dimension() -> int | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT atttypmod FROM pg_attribute WHERE attrelid = %s::regclass AND attname = %s "
                       "AND NOT attisdropped", [TABLE, SIDE])
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
            cursor.execute(f"ALTER TABLE {TABLE} ADD COLUMN {SIDE} vector({dim})")


def _counts() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FILTER (WHERE {SIDE} IS NOT NULL), count(*) FROM {TABLE}")
        done, total = cursor.fetchone()
    return done, total


def _embed_batch(embedder: Embedder, batch_size: int) -> int:
    """Embed one batch of the rows still without a new vector; returns how many."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, content FROM {TABLE} WHERE {SIDE} IS NULL ORDER BY id LIMIT %s", [batch_size])
        rows = cursor.fetchall()
        if not rows:
            return 0
        vectors = embedder.embed([content for _, content in rows])
        cursor.executemany(f"UPDATE {TABLE} SET {SIDE} = %s::vector WHERE id = %s",
                           [(str(vector), memory_id) for (memory_id, _), vector in zip(rows, vectors)])
    return len(rows)


def _embed_cue_batch(embedder: Embedder, batch_size: int) -> int:
    """Embed the cues of one batch of rows that have cues but no cue vector; returns how many."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, cues FROM {TABLE} WHERE cue_embedding IS NULL AND cardinality(cues) > 0 "
                       "ORDER BY id LIMIT %s", [batch_size])
        rows = cursor.fetchall()
        if not rows:
            return 0
        vectors = embedder.embed([cue_text(cues) for _, cues in rows])
        cursor.executemany(f"UPDATE {TABLE} SET cue_embedding = %s::vector WHERE id = %s",
                           [(str(vector), memory_id) for (memory_id, _), vector in zip(rows, vectors)])
    return len(rows)


def reembed(embedder: Embedder, *, batch_size: int = 256,
            progress: Callable[[int, int], None] | None = None) -> ReembedReport:
    """Give every memory (every user, every status and version) a vector from `embedder`, then switch."""
    _prepare_side_column(embedder.dim)
    report = ReembedReport()
    done, report.total = _counts()
    if progress:
        progress(done, report.total)
    while True:
        count = _embed_batch(embedder, batch_size)
        if not count:
            break
        report.embedded += count
        done += count
        if progress:
            progress(min(done, report.total), report.total)
    with transaction.atomic():
        with connection.cursor() as cursor:
            # Writes wait while the columns change; reads (recall) go on until the rename commits.
            cursor.execute(f"LOCK TABLE {TABLE} IN SHARE ROW EXCLUSIVE MODE")
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        while _embed_batch(embedder, batch_size):  # rows written since the last batch
            pass
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {INDEX}")
            cursor.execute(f"ALTER TABLE {TABLE} DROP COLUMN embedding")
            cursor.execute(f"ALTER TABLE {TABLE} RENAME COLUMN {SIDE} TO embedding")
            cursor.execute(f"CREATE INDEX {INDEX} ON {TABLE} USING hnsw (embedding vector_cosine_ops) "
                           "WITH (m = 16, ef_construction = 64)")
            # The cues' vectors were the old model's: emptied here (recall then takes the content's
            # cosine alone) and embedded again below, after the lock is released.
            cursor.execute(f"DROP INDEX IF EXISTS {CUE_INDEX}")
            cursor.execute(f"ALTER TABLE {TABLE} DROP COLUMN cue_embedding")
            cursor.execute(f"ALTER TABLE {TABLE} ADD COLUMN cue_embedding vector({embedder.dim})")
            cursor.execute(f"CREATE INDEX {CUE_INDEX} ON {TABLE} USING hnsw (cue_embedding vector_cosine_ops) "
                           "WITH (m = 16, ef_construction = 64)")
    while _embed_cue_batch(embedder, batch_size):
        pass
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
