"""A question about the time before something (DESIGN flow 1, time travel): "What did I prefer before
React?", "我用React之前喜欢什么？", "在上海之前我住哪儿？".

The answer is in the supersedes chain, not in the words: the Vue memory says nothing of React. So the
chat finds the memory the question names (recall over every version, `RECALL_NAMED`), and hands the
versions that memory replaced, nearest first, ranked before anything else; they reach the prompt as past
("… (true until 2026-09-24, then replaced by: …)") and their chips say "past". What the question names
comes from `past.named_before`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memoryapp.models import Memory, MemoryStatus

from .recall import RecalledMemory, recall
from .recipes import RECALL_NAMED

if TYPE_CHECKING:
    from memoryapp.graph.port import GraphPort
    from memoryapp.providers.embeddings.base import Embedder

CHAIN_SOURCE = "chain"  # RecalledMemory.ranks key: how many versions before the named memory it was


def predecessors(memory: Memory, limit: int) -> list[Memory]:
    """The versions `memory` replaced, nearest first, back along the chain; deleted and forgotten ones
    are passed through, not handed."""
    found: list[Memory] = []
    seen, frontier = {memory.pk}, [memory.pk]
    while frontier and len(found) < limit:
        older = [
            m
            for m in Memory.objects.filter(superseded_by__in=frontier).order_by("-valid_from", "-id")
            if m.pk not in seen
        ]
        seen.update(m.pk for m in older)
        found += [m for m in older if m.status == MemoryStatus.ACTIVE]
        frontier = [m.pk for m in older]
    return found[:limit]


def replaced_before(
    user, named: str, *, limit: int, embedder: Embedder | None = None, graph: GraphPort | None = None
) -> list[RecalledMemory]:
    """The versions replaced by the best-ranked memory that `named` finds and that replaced something,
    nearest first, each carrying that memory's scores; [] when no such memory is found. `embedder`, `graph`:
    recall's clients (default: the configured ones)."""
    for item in recall(
        user, named, config=RECALL_NAMED, include_history=True, record_access=False, embedder=embedder, graph=graph
    ).items:
        earlier = predecessors(item.memory, limit)
        if earlier:
            return [
                RecalledMemory(
                    memory=m,
                    score=item.score,
                    similarity=item.similarity,
                    cosine=item.cosine,
                    importance=m.importance,
                    recency=item.recency,
                    ranks={CHAIN_SOURCE: depth},
                )
                for depth, m in enumerate(earlier, start=1)
            ]
    return []
