"""Write one LoCoMo sample as memories through engine.memories.bulk.bulk_add, keeping dia_id -> memory id.

bulk_add skips exact duplicates (same content_key); a duplicate turn maps to the memory that
survived, so evidence mapping stays right. Turn vectors are cached under var/bench so repeated
runs (config variants) skip the slowest step; the cache key is the model name plus the texts.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .dataset import Sample


@dataclass
class Ingested:
    user: object
    turns_of: dict[int, list[str]] = field(default_factory=dict)  # memory id -> dia_ids it stands for
    memory_of: dict[str, int] = field(default_factory=dict)  # dia_id -> memory id
    ids: list[int] = field(default_factory=list)  # surviving memories, in write order
    texts: list[str] = field(default_factory=list)
    vectors: list[list[float]] = field(default_factory=list)
    embed_s: float = 0.0
    write_s: float = 0.0
    duplicates: int = 0


def embed_cached(texts: list[str], cache_dir: Path, query: bool = False) -> tuple[list[list[float]], float]:
    """(vectors, seconds spent embedding; 0 when cached). `query`: each text embedded as a search, on the
    embedder's query side (e5's "query: "; the same vectors for a symmetric embedder)."""
    from django.conf import settings

    from memoryapp.providers.embeddings import get_embedder, query_vector

    side = ["\x1dquery"] if query else []  # a key of its own; stored texts keep their old keys
    digest = hashlib.sha256("\x1e".join([settings.EMBEDDING_MODEL, *side, *texts]).encode()).hexdigest()[:24]
    path = cache_dir / f"{digest}.npy"
    if path.exists():
        return np.load(path).tolist(), 0.0
    started = time.perf_counter()
    embedder = get_embedder()
    vectors = [query_vector(embedder, text) for text in texts] if query else embedder.embed(texts)
    seconds = time.perf_counter() - started
    cache_dir.mkdir(parents=True, exist_ok=True)
    np.save(path, np.asarray(vectors, dtype=np.float32))
    return vectors, seconds


CONTEXTS = ("none", "previous")


def turn_contexts(sample: Sample, mode: str = "previous") -> list[str]:
    """Per turn, what is stored as its memory's context: with "previous", the turn before it in the
    same session (what it answers), as a chat memory keeps the message it was learnt from."""
    if mode == "none":
        return [""] * len(sample.turns)
    contexts, before = [], None
    for turn in sample.turns:
        same_session = before is not None and before.dia_id.split(":")[0] == turn.dia_id.split(":")[0]
        contexts.append(before.content if same_session else "")
        before = turn
    return contexts


def ingest(sample: Sample, cache_dir: Path, context: str = "previous") -> Ingested:
    from memoryapp.engine.memories.bulk import bulk_add
    from memoryapp.engine.memories.validation import MemoryInput
    from memoryapp.engine.text import content_key

    from .runtime import fresh_user

    user = fresh_user(f"locomo-{sample.sample_id}")
    items = [
        MemoryInput(content=turn.content, valid_from=turn.when, context=ctx)
        for turn, ctx in zip(sample.turns, turn_contexts(sample, context))
    ]
    vectors, embed_s = embed_cached([item.content for item in items], cache_dir)
    started = time.perf_counter()
    written = bulk_add(user.pk, items, embeddings=vectors)
    result = Ingested(user=user, embed_s=embed_s, write_s=time.perf_counter() - started)
    survivor: dict[str, int] = {}
    for turn, item, vector, memory in zip(sample.turns, items, vectors, written):
        key = content_key(item.content)
        if memory is not None:
            survivor[key] = memory.pk
            result.ids.append(memory.pk)
            result.texts.append(item.content)
            result.vectors.append(vector)
        else:
            result.duplicates += 1
        memory_id = survivor[key]  # a duplicate always follows its survivor: the user starts empty
        result.memory_of[turn.dia_id] = memory_id
        result.turns_of.setdefault(memory_id, []).append(turn.dia_id)
    return result
