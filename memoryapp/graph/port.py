"""The port every temporal-graph backend implements (graphiti on FalkorDB, Zep over zep-python).

The memory row is the source of truth; a backend only stores derived facts, so a user's graph can be
rebuilt from Postgres with `drop_user` and `sync_memories` (sync.rebuild_from_rows). Every method raises
`GraphError` subclasses and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from memoryapp.models import Memory


@dataclass(frozen=True)
class MemorySnapshot:
    """What the loop thread may read: plain values, no lazy ORM access off the caller's thread."""

    id: int
    user_id: int
    content: str
    kind: str
    valid_from: datetime
    valid_until: datetime | None
    episode_id: str
    embedding: list[float] | None = None  # the row's vector: the fact's embedding without embedding again

    @classmethod
    def of(cls, memory: Memory) -> MemorySnapshot:
        vector = [float(x) for x in memory.embedding] if memory.embedding is not None else None
        return cls(
            memory.pk,
            memory.user_id,
            memory.content,
            memory.kind,
            memory.valid_from,
            memory.valid_until,
            memory.graph_episode_id or "",
            embedding=vector,
        )

    @property
    def body(self) -> str:
        # A speaker line: graphiti extracts the speaker ("User") as an entity, so all of one
        # user's facts hang off one node and BFS can walk between them.
        return f"User: {self.content}"


@dataclass(frozen=True)
class GraphFact:
    """One fact (edge) from the graph, with the episodes that support it and its validity window."""

    fact: str
    episode_ids: tuple[str, ...]
    score: float
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    uuid: str = ""


@dataclass(frozen=True)
class GraphEntity:
    """One entity the graph extracted (a person, place, project, tool) and the episodes that mention it."""

    uuid: str
    name: str
    episode_ids: tuple[str, ...]


@dataclass(frozen=True)
class GraphRelation:
    """One fact between two entities, by their uuids, with the episodes behind it and its validity window."""

    source: str
    target: str
    fact: str
    episode_ids: tuple[str, ...]
    valid_at: datetime | None = None
    invalid_at: datetime | None = None


@dataclass(frozen=True)
class GraphMap:
    """What the graph holds for one user, for the memory graph page (bounded by the caller's limit)."""

    entities: tuple[GraphEntity, ...] = ()
    relations: tuple[GraphRelation, ...] = ()


@dataclass(frozen=True)
class GraphHealth:
    ok: bool
    backend: str
    detail: str = ""
    latency_ms: float | None = None
    extra: dict = field(default_factory=dict)


@runtime_checkable
class GraphPort(Protocol):
    name: str

    def sync_memory(self, memory: Memory) -> str:
        """Make the graph hold `memory` as one episode; return its episode id.

        Idempotent: if `memory.graph_episode_id` already holds this content and time, nothing
        is re-extracted (only its facts' validity follows the memory's: superseded, restored);
        a changed memory gets a new episode and the old one is purged.
        """
        ...

    sync_batch_size: int  # how many memories of one user sync_memories takes at once (1: no gain from more)

    def sync_memories(self, memories: list[Memory]) -> list[str]:
        """`sync_memory` for several memories of one user, oldest first, written together; their episode ids
        in order (a batch writes the same graph as one memory at a time)."""
        ...

    def purge(self, episode_id: str, user_id: int) -> None:
        """Remove the episode and the facts and entities only it supported (quiet if already gone)."""
        ...

    def search(
        self,
        user_id: int,
        query: str,
        *,
        at: datetime | None,
        limit: int,
        include_history: bool,
        timeout_s: float | None = None,
        query_vector: list[float] | None = None,
    ) -> list[GraphFact]:
        """Facts best first. Without history: current facts only (or those true at `at`).
        `query_vector`: the query's embedding when the caller has it (the graph need not embed it again).

        Raises GraphUnavailable when no answer came within `timeout_s` (default: GRAPH_TIMEOUT_SECONDS).
        """
        ...

    def drop_user(self, user_id: int) -> None:
        """Delete everything the graph holds for the user."""
        ...

    def health(self) -> GraphHealth: ...
