"""A diversity report for written or generated training data, read before any training run: how much of
it is near-duplicate by embedding, how often one skeleton (the sentence with its content words masked)
recurs, and how lengths spread. Generated data that repeats a few templates teaches the templates."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

NEAR_DUPLICATE = 0.95  # cosine between two sentences' vectors
_WORD = re.compile(r"[A-Za-z]+|\d+|[\u4e00-\u9fff]")


def skeleton(text: str) -> str:
    """The text's shape: its first three and last two tokens, the rest counted (a template leaves the
    same ends and varies the middle)."""
    tokens = _WORD.findall(text.lower())
    return " ".join(tokens[:3]) + f" …{max(len(tokens) - 5, 0)}… " + " ".join(tokens[-2:])


def report(texts: list[str], vectors: np.ndarray | None = None) -> dict:
    """Shares over the whole set; vectors (one row per text, unit length) give the near-duplicate share."""
    lengths = np.array([len(t) for t in texts]) if texts else np.zeros(1)
    skeletons = Counter(skeleton(t) for t in texts)
    out = {
        "n": len(texts),
        "distinct_share": round(len(set(texts)) / max(len(texts), 1), 3),
        "top_skeleton_share": round(max(skeletons.values(), default=0) / max(len(texts), 1), 3),
        "skeletons_used_3_or_more_times": sum(1 for c in skeletons.values() if c >= 3),
        "length_chars": {
            "p10": int(np.percentile(lengths, 10)),
            "median": int(np.median(lengths)),
            "p90": int(np.percentile(lengths, 90)),
        },
    }
    if vectors is not None and len(texts) > 1:
        v = np.asarray(vectors, dtype=np.float32)
        near = 0
        for start in range(0, len(v), 512):  # blockwise: a few thousand rows fit, tens of thousands too
            sims = v[start : start + 512] @ v.T
            for row, i in enumerate(range(start, min(start + 512, len(v)))):
                sims[row, i] = -1.0
            near += int((sims.max(axis=1) >= NEAR_DUPLICATE).sum())
        out["near_duplicate_share"] = round(near / len(texts), 3)
    return out
