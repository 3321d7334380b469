"""Exact dense retrieval: cosine over the same MiniLM vectors, a full numpy scan (no index)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class DensePeer:
    name = "dense"

    def __init__(self, ids: Sequence[int], vectors: Sequence[Sequence[float]]):
        self._ids = np.asarray(ids)
        matrix = np.asarray(vectors, dtype=np.float32)
        self._matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)

    def search(self, query: str, query_vector: list[float], k: int) -> list[int]:
        q = np.asarray(query_vector, dtype=np.float32)
        scores = self._matrix @ (q / max(float(np.linalg.norm(q)), 1e-12))
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [int(i) for i in self._ids[top]]

    def close(self) -> None:
        pass
