from __future__ import annotations

from typing import Protocol


class Embedder(Protocol):
    """Turns texts into unit-length vectors of `dim` floats, in batches.

    `embed`/`embed_one` embed what is stored (a memory, a message). A model trained with a different
    side for searches (e5's "query: ") also has `embed_query`; call `query_vector()`, which falls back to
    `embed_one` for the symmetric ones."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...

    def embed_one(self, text: str) -> list[float]: ...


def query_vector(embedder: Embedder, text: str) -> list[float]:
    """`text` embedded as a search: the embedder's query side when it has one, else as any text."""
    embed_query = getattr(embedder, "embed_query", None)
    return embed_query(text) if embed_query is not None else embedder.embed_one(text)
