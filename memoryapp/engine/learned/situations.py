"""Situations for every memory without a model (issue #43): the cues of a memory nobody wrote cues for,
inferred from a bank of (memory, situations in which it helps) pairs written for this project in both
languages (cue_bank/*.jsonl, never the benchmark's people).

A memory's cue vector (Memory.cue_embedding, which recall's cosine reads beside the content's) is its own
vector blended with where a linear map, fitted on the bank's pairs, sends it: toward the situations such
memories help in. Its cues' words (Memory.cues, marked `cues_inferred`, shown as such on its card) are
the situations of its nearest bank memories. So "我对花生过敏" is found by "给我推荐点零食": the bank's
allergy entries are about snacks, restaurants and recipes, words the memory never says. A model, when one is configured, writes the memory's own cues over them (the cue
job, engine/learning/cues.py); a person's cues are never replaced.

The bank's vectors ship in weights/situations.npz, written by `python -m bench.train situations` with the
embedder they were made with: under another embedder no cues are inferred (the system check names the
command that rebuilds it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from ..text import content_words
from .model import load, usable

MODEL_NAME = "situations"
BANK_DIR = Path(__file__).resolve().parent / "cue_bank"
NEIGHBOURS = 8  # the nearest bank memories considered for a memory's cues' words
LENDERS = 2  # of those, how many lend their situations
FLOOR = 0.5  # a bank memory this far or further (cosine) lends no words
CLOSE = 0.05  # a second lender scores at most this much below the first
WORD_BONUS = 0.05  # per word the two memories share: USE ranks "allergic to sulfa" beside "allergic to peanuts"
SITUATIONS = 6  # the most inferred cues a memory keeps (Memory.cues holds up to MAX_CUES)
# The cue vector is half the memory's own vector, half the situations the bank maps it to (0.3 to 0.7
# measured on dev; 0.5 kept the most needed memories at each precision: docs/recall.md).
BLEND = 0.5
RIDGE = 1.0  # the map's regularisation (0.05 to 20 measured alike on dev)


@dataclass(frozen=True)
class Inferred:
    cues: tuple[str, ...]
    vector: list[float]


@dataclass(frozen=True, eq=False)  # compared (and cached) by identity
class Bank:
    memories: tuple[str, ...]  # the bank's memories, in bank order
    situations: tuple[tuple[str, ...], ...]  # per bank memory
    memory_vectors: np.ndarray  # one unit row per bank memory
    situation_vectors: np.ndarray  # one unit row per bank memory: its situations embedded as one text


def read_entries(bank_dir: Path = BANK_DIR) -> list[dict]:
    """The bank's entries, file by file (sorted) and line by line: the order the shipped vectors follow."""
    entries: list[dict] = []
    for path in sorted(bank_dir.glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            entries.extend(json.loads(line) for line in lines if line.strip())
    return entries


def fingerprint(entries: Sequence[dict]) -> str:
    """What the shipped vectors were made from: a bank edited since needs them made again."""
    import hashlib

    text = json.dumps([[e["memory"], e["situations"]] for e in entries], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@cache
def _bank(embedder: str) -> Bank | None:
    model = load(MODEL_NAME)
    if model is None or model.embedder != embedder:
        return None
    entries = read_entries()
    if fingerprint(entries) != model.meta.get("bank"):
        return None  # the bank changed since its vectors were made: infer nothing rather than mismatch
    return Bank(
        tuple(e["memory"] for e in entries),
        tuple(tuple(e["situations"]) for e in entries),
        model.extra["memory_vectors"].astype(np.float32),
        model.extra["situation_vectors"].astype(np.float32),
    )


def bank() -> Bank | None:
    """The bank for the configured embedder, or None (INFER_CUES off, not built, another embedder, rules
    only)."""
    from django.conf import settings

    if not settings.INFER_CUES or usable(MODEL_NAME) is None:
        return None
    return _bank(settings.EMBEDDING_MODEL)


def infer(
    vectors: Sequence[Sequence[float] | None], texts: Sequence[str] | None = None, found: Bank | None = None
) -> list[Inferred | None]:
    """Per memory vector (and its text, when given), its inferred cues and cue vector (None where the
    vector is None, or no bank is available). The vector: the memory's own, blended with the situations a
    linear map (fitted on the bank's memory -> situations pairs) sends it to. The words: the situations of
    the LENDERS nearest bank memories, the words the two share counting beside the cosine; none when no
    bank memory is near (FLOOR)."""
    found = found or bank()
    if found is None or not vectors:
        return [None] * len(vectors)
    rows = [i for i, v in enumerate(vectors) if v is not None]
    out: list[Inferred | None] = [None] * len(vectors)
    if not rows:
        return out
    matrix = _unit(np.asarray([vectors[i] for i in rows], dtype=np.float32))
    mapped = BLEND * matrix + (1 - BLEND) * _unit(matrix @ _mapping(found))
    mapped = _unit(mapped)
    sims = matrix @ found.memory_vectors.T
    nearest = np.argsort(-sims, axis=1)[:, :NEIGHBOURS]
    for row, index in enumerate(rows):
        words = _words(texts[index]) if texts is not None else frozenset()
        score = {
            int(j): float(sims[row, j]) + WORD_BONUS * len(words & _words(found.memories[j]))
            for j in nearest[row]
            if sims[row, j] > FLOOR
        }
        lenders = sorted(score, key=lambda j: -score[j])[:LENDERS]
        lenders = [j for j in lenders if score[j] >= score[lenders[0]] - CLOSE]
        out[index] = Inferred(_situations(found, lenders), mapped[row].astype(float).tolist())
    return out


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    """Content words, a Latin word by its first five letters ("peanut", "peanuts"; "allergic", "allergy")."""
    return frozenset(w[:5] if w.isascii() else w for w in content_words(text))


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)


@cache
def _mapping(found: Bank) -> np.ndarray:
    """The ridge regression from a bank memory's vector to its situations' vector (dim x dim)."""
    m = found.memory_vectors.astype(np.float64)
    t = found.situation_vectors.astype(np.float64)
    return np.linalg.solve(m.T @ m + RIDGE * np.eye(m.shape[1]), m.T @ t).astype(np.float32)


def _situations(found: Bank, picked: list[int]) -> tuple[str, ...]:
    """The nearest bank memories' situations, taken in turn (the nearest's first of each round), repeats
    dropped, at most SITUATIONS."""
    chosen: list[str] = []
    rounds = max((len(found.situations[j]) for j in picked), default=0)
    for turn in range(rounds):
        for j in picked:
            if turn < len(found.situations[j]) and found.situations[j][turn] not in chosen:
                chosen.append(found.situations[j][turn])
    return tuple(chosen[:SITUATIONS])
