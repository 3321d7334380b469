"""Peers measured beside our recall on the same documents, questions and k.

Each peer is built from (doc id, text, vector) triples of one sample and answers `search(query,
query_vector, k)` with doc ids, best first; the runner times that call.
"""

from __future__ import annotations

from typing import Protocol


class Peer(Protocol):
    name: str

    def search(self, query: str, query_vector: list[float], k: int) -> list[int]: ...

    def close(self) -> None: ...
