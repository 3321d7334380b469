"""The situation bank's vectors (memoryapp/engine/learned/situations.py): every bank memory and its
situations embedded with the configured embedder, shipped as weights/situations.npz.

Nothing is fitted: the bank is read as written (memoryapp/engine/learned/cue_bank/*.jsonl). The report
says how varied it is (bench/train/diversity.py, memories and situations apart) and how blind: for each
benchmark persona memory (bench/chat_cases, every split) its nearest bank memory, and the share closer
than NEAR_COPY (a bank entry that near is a copy, and the chat bench would measure it, not the bank);
also any situation that is word for word a cue of the bench's hand-written cue file.

    python -m bench.train situations
"""

from __future__ import annotations

import json

import numpy as np

from bench.chat_data import CASES_DIR, load_personas
from bench.train.diversity import report as diversity_report

NAME = "situations"
NEAR_COPY = 0.8  # cosine between a persona memory and a bank memory (entries this near were taken out)


def _vectors(texts: list[str]) -> np.ndarray:
    from bench.ingest import embed_cached
    from bench.runtime import BENCH_VAR_DIR

    vectors, _ = embed_cached(texts, BENCH_VAR_DIR / "vectors")
    matrix = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)


def blindness(memory_vectors: np.ndarray, entries: list[dict]) -> dict:
    splits = tuple(sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir()))
    personas = load_personas(splits)
    texts = [m.content for p in personas for m in p.memories]
    nearest = (_vectors(texts) @ memory_vectors.T).max(axis=1)
    closest = int(np.argmax(nearest))
    cue_file = json.loads((CASES_DIR / "cues.json").read_text())
    hand_written = {
        cue
        for persona, found in cue_file.items()
        if not persona.startswith("_")
        for cues in found.values()
        for cue in cues
    }
    same = sorted({s for e in entries for s in e["situations"] if s in hand_written})
    return {
        "persona_memories": len(texts),
        "near_copies": int((nearest >= NEAR_COPY).sum()),
        "nearest_cosine": {"median": round(float(np.median(nearest)), 3), "max": round(float(nearest.max()), 3)},
        "closest_pair": [
            texts[closest],
            entries[int(np.argmax(_vectors([texts[closest]]) @ memory_vectors.T))]["memory"],
        ],
        "situations_in_the_cue_file": same,
    }


def build_bank():
    """The bank as the app reads it, made here from the bank's text (the relevance trainer's memories get
    their inferred cues from it, as the chat's do, without waiting for the shipped file)."""
    from memoryapp.engine.learned.situations import Bank, read_entries
    from memoryapp.engine.memories.cue_fields import cue_text

    entries = read_entries()
    return Bank(
        tuple(e["memory"] for e in entries),
        tuple(tuple(e["situations"]) for e in entries),
        _vectors([e["memory"] for e in entries]),
        _vectors([cue_text(e["situations"]) for e in entries]),
    )


def train(seed: int) -> dict:
    from django.conf import settings

    from memoryapp.engine.learned.model import TrainedModel
    from memoryapp.engine.learned.situations import MODEL_NAME, fingerprint, read_entries

    entries = read_entries()
    memories = [e["memory"] for e in entries]
    situations = [s for e in entries for s in e["situations"]]
    bank = build_bank()
    memory_vectors, situation_vectors = bank.memory_vectors, bank.situation_vectors
    model = TrainedModel(
        name=MODEL_NAME,
        layers=(),
        mean=np.zeros(0),
        scale=np.ones(0),
        meta={"embedder": settings.EMBEDDING_MODEL, "bank": fingerprint(entries), "entries": len(entries)},
        extra={
            "memory_vectors": memory_vectors.astype(np.float16),
            "situation_vectors": situation_vectors.astype(np.float16),
        },
    )
    path = model.save()
    languages: dict[str, int] = {}
    kinds: dict[str, int] = {}
    for e in entries:
        languages[e["language"]] = languages.get(e["language"], 0) + 1
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    return {
        "model": MODEL_NAME,
        "weights": path.name,
        "weights_bytes": path.stat().st_size,
        "entries": len(entries),
        "situations": len(situations),
        "topics": len({e["topic"] for e in entries}),
        "languages": languages,
        "kinds": kinds,
        "diversity_memories": diversity_report(memories, memory_vectors),
        "diversity_situations": diversity_report(situations),
        "blindness": blindness(memory_vectors, entries),
        "seed": seed,
    }
