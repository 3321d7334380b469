from __future__ import annotations

from typing import Protocol


class Embedder(Protocol):
    """Turns texts into unit-length vectors of `dim` floats, in batches."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...

    def embed_one(self, text: str) -> list[float]: ...
