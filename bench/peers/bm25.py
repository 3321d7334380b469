"""BM25 over the same memory texts (bm25s, English stopwords, no stemmer: its default)."""

from __future__ import annotations

from collections.abc import Sequence

import bm25s


class BM25Peer:
    name = "bm25"

    def __init__(self, ids: Sequence[int], texts: Sequence[str]):
        self._ids = list(ids)
        self._retriever = bm25s.BM25()
        self._retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)

    def search(self, query: str, query_vector: list[float], k: int) -> list[int]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)
        k = min(k, len(self._ids))
        docs, scores = self._retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        # Zero-score rows are arbitrary filler (no query word matched): not retrieved.
        return [self._ids[i] for i, s in zip(docs[0], scores[0]) if s > 0]

    def close(self) -> None:
        pass
