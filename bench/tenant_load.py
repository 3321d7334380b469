"""Load many users' synthetic memories straight into the memory table, for `bench.scale --tenants`.

The app's write path runs ~300 memories/s; a million rows take it most of an hour, so the rows go in
by one binary COPY with the columns the app fills (search_tokens, search_context and content_key by the
app's own functions; the tsvector is the table's generated column). The table's indexes are dropped
before the load and built after it, each build timed. No MemoryEvent rows are written: recall never
reads them. Vectors reuse an embedded pool (bench/synthetic.py) with noise drawn per chunk, so no two
rows share a vector.
"""

from __future__ import annotations

import hashlib
import logging
import random
import struct
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np

from . import synthetic

logger = logging.getLogger("bench.scale.tenants")
TABLE = "memoryapp_memory"
PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
START = datetime(2025, 11, 1, tzinfo=UTC)  # memories are learnt over the year before the bench


def tenant_sizes(users: int, rows: int, *, seed: int = 3, sigma: float = 1.3, smallest: int = 5) -> list[int]:
    """Memories per user: log-normal (most users have a few hundred, some thousands), scaled so the
    sizes sum to `rows` exactly, each at least `smallest`."""
    if users * smallest > rows:
        raise ValueError(f"{rows} rows cannot give {users} users {smallest} memories each")
    rng = np.random.default_rng(seed)
    weights = rng.lognormal(0.0, sigma, users)
    spare = rows - users * smallest
    sizes = smallest + np.floor(weights / weights.sum() * spare).astype(np.int64)
    for index in np.argsort(-weights)[: rows - int(sizes.sum())]:  # the rounding's remainder, to the largest
        sizes[index] += 1
    return [int(s) for s in sizes]


# --- binary COPY -------------------------------------------------------------------------------------


def _encode(kind: str, value) -> bytes | None:
    """One field in Postgres' binary COPY format (without its length word)."""
    if value is None:
        return None
    if kind == "integer":
        return struct.pack(">i", value)
    if kind == "boolean":
        return b"\x01" if value else b"\x00"
    if kind == "bigint":
        return struct.pack(">q", value)
    if kind == "double precision":
        return struct.pack(">d", value)
    if kind in ("text", "character varying"):
        return value.encode()
    if kind == "timestamp with time zone":
        delta = value - PG_EPOCH
        return struct.pack(">q", (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds)
    if kind == "halfvec":  # pgvector's binary form: dimension, unused, then big-endian float2s
        return struct.pack(">HH", len(value) // 2, 0) + value
    if kind == "character varying[]" and not value:  # an empty array: no dimensions, no nulls, varchar
        return struct.pack(">iii", 0, 0, 1043)
    raise ValueError(f"no binary encoding for {kind} {value!r}")


def encode_row(kinds: list[str], values: list) -> bytes:
    parts = [struct.pack(">h", len(values))]
    for kind, value in zip(kinds, values):
        data = _encode(kind, value)
        parts.append(struct.pack(">i", -1) if data is None else struct.pack(">i", len(data)) + data)
    return b"".join(parts)


def column_kinds(cursor, columns: list[str]) -> list[str]:
    cursor.execute(
        """SELECT a.attname, format_type(a.atttypid, NULL) FROM pg_attribute a
                      WHERE a.attrelid = %s::regclass AND a.attnum > 0""",
        [TABLE],
    )
    kinds = dict(cursor.fetchall())
    return [kinds[c] for c in columns]


COLUMNS = [
    "user_id",
    "content",
    "content_key",
    "kind",
    "lifecycle",
    "importance",
    "confidence",
    "access_count",
    "status",
    "valid_from",
    "source",
    "embedding",
    "context",
    "cues",
    "search_tokens",
    "search_context",
    "search_cues",
    "graph_episode_id",
    "graph_sync_state",
    "created_at",
    "updated_at",
    "cues_inferred",
]


def user_rows(
    user_id: int, count: int, start: int, pool: list[str], pool_vectors: np.ndarray, seed: int
) -> Iterator[list]:
    """One user's rows as COPY values, in the order of COLUMNS; `start` numbers the notes across users."""
    from memoryapp.engine.text import content_key, search_context, search_tokens

    texts = synthetic.memories(count, pool, start=start)
    rng = np.random.default_rng([seed, start])
    noisy = pool_vectors[[i for _, i in texts]] + rng.normal(0, 0.02, (count, pool_vectors.shape[1])).astype(np.float32)
    noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
    vectors = noisy.astype(">f2")
    picks = random.Random(seed * 1_000_003 + start)
    for n, (text, _) in enumerate(texts):
        created = START + timedelta(seconds=picks.randrange(365 * 86400))
        yield [
            user_id,
            text,
            content_key(text),
            "fact",
            "working",
            round(picks.uniform(0.3, 0.9), 2),
            0.8,
            0,
            "active",
            created,
            "manual",
            vectors[n].tobytes(),
            "",
            [],
            search_tokens(text),
            search_context("", created),
            "",
            "",
            "pending",
            created,
            created,
            False,
        ]


def interleaved_plan(plan: list[tuple[int, int]], rounds: int, seed: int = 29) -> list[list[tuple[int, int]]]:
    """Each user's rows cut into `rounds` slices; a round holds one slice of every user, so a user's rows
    spread over the whole table as in a service where everyone writes all year (not one block per user)."""
    rng = random.Random(seed)
    out = []
    for r in range(rounds):
        part = [(user, count * (r + 1) // rounds - count * r // rounds) for user, count in plan]
        rng.shuffle(part)
        out.append([(user, n) for user, n in part if n])
    return out


def copy_users(
    connection,
    plan: list[tuple[int, int]],
    pool: list[str],
    pool_vectors: np.ndarray,
    *,
    rounds: int = 20,
    seed: int = 23,
) -> float:
    """COPY every (user id, count) of `plan` into the memory table, rows shuffled across users within
    each round (interleaved_plan); returns seconds."""
    started, written = time.perf_counter(), 0
    shuffle = random.Random(seed)
    with connection.cursor() as cursor:
        kinds = column_kinds(cursor, COLUMNS)
        with cursor.copy(f"COPY {TABLE} ({', '.join(COLUMNS)}) FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.write(b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0))
            for part in interleaved_plan(plan, rounds):
                rows = []
                for user_id, count in part:
                    made = user_rows(user_id, count, written, pool, pool_vectors, seed)
                    rows.extend(encode_row(kinds, row) for row in made)
                    written += count
                shuffle.shuffle(rows)
                copy.write(b"".join(rows))
                logger.info("copied %d rows in %.0f s", written, time.perf_counter() - started)
            copy.write(struct.pack(">h", -1))
    return time.perf_counter() - started


# --- indexes -----------------------------------------------------------------------------------------


def secondary_indexes(cursor) -> dict[str, str]:
    """name -> CREATE INDEX statement for every index on the memory table but its primary key."""
    cursor.execute(
        """SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                      WHERE x.indrelid = %s::regclass AND NOT x.indisprimary ORDER BY i.relname""",
        [TABLE],
    )
    return dict(cursor.fetchall())


def drop_indexes(cursor, indexes: dict[str, str]) -> None:
    for name in indexes:
        cursor.execute(f'DROP INDEX IF EXISTS "{name}"')


def build_indexes(cursor, indexes: dict[str, str], maintenance_work_mem: str) -> dict[str, dict]:
    """Build each index, timed, the HNSW ones last (the longest: the table can be queried by the others
    meanwhile); returns name -> {seconds, bytes}."""
    cursor.execute("SELECT set_config('maintenance_work_mem', %s, false)", [maintenance_work_mem])
    # One worker beside the leader: these machines have two cores, shared.
    cursor.execute("SET max_parallel_maintenance_workers = 1")
    out = {}
    for name, statement in sorted(indexes.items(), key=lambda item: ("USING hnsw" in item[1], item[0])):
        started = time.perf_counter()
        cursor.execute(statement)
        seconds = time.perf_counter() - started
        cursor.execute("SELECT pg_relation_size(%s::regclass)", [name])
        out[name] = {"seconds": round(seconds, 1), "bytes": cursor.fetchone()[0]}
        logger.info("built %s in %.1f s (%d MB)", name, seconds, out[name]["bytes"] >> 20)
    return out


def dataset_tag(rows: int, users: int, large: int) -> str:
    """The username prefix of one dataset's users: a rerun with the same shape finds and reuses them."""
    return "tenants-" + hashlib.sha256(f"{rows}:{users}:{large}".encode()).hexdigest()[:8]
