"""Graph recall over the rules-built graph (GRAPH_EXTRACTION=rules): from the entities a query names, the
facts around them, one or two hops, time-valid, ranked by how close each fact is to the query, in one
Cypher query.

Postgres already ranks every memory by its words and meaning; what the graph adds is which memories are
tied to the entities the query names. A rare entity (few memories name it: "Tomas Berg") is evidence by
itself, and the entities its memories also name lead a second hop ("Priya's flatmate" -> Tomas -> his
new job). A hub (the user, the other side of every conversation: named by a large share of the memories)
says little by itself and reaches everything: no walk starts at or goes through one. (Ranking a named
hub's facts by their closeness to the query instead cost LoCoMo dev recall at every fusion weight tried:
Postgres already ranks those same texts by meaning; docs/benchmarks/locomo-graph.md.)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .entities import extract_entities, resolve
from .rule_facts import USER_NAME
from .runner import loop_state

if TYPE_CHECKING:
    from graphiti_core import Graphiti

HUB_SHARE = 0.05  # an entity that more than this share of the user's memories name is a hub...
HUB_MIN_MEMORIES = 8  # ...and never one named by this few (a small graph has no hubs but the user)
SECOND_HOP = 0.8  # a fact two hops away counts this much of one on a named entity
TABLE_TTL_S = 30.0  # the per-user entity table is re-read at most this often (new entities show up then)
FACTS_PER_QUERY = 200  # what one walk returns at most, best first
MAX_CACHED_TABLES = 256  # users' tables kept per process, as graphiti.MAX_CACHED_GRAPHS


@dataclass(frozen=True)
class EntityTable:
    """The user's entity nodes by name, how many memories name each, and how many memories there are:
    what resolving a query's names and telling a rare entity from a hub need."""

    uuid_of: dict[str, str]  # name -> node uuid (the user's node aside)
    mentions: dict[str, int]  # node uuid -> memories (episodes) that name it
    memories: int
    user_uuid: str | None = None
    read_at: float = 0.0

    def is_hub(self, uuid: str) -> bool:
        if uuid == self.user_uuid:
            return True
        return self.mentions.get(uuid, 0) > max(HUB_SHARE * self.memories, HUB_MIN_MEMORIES)

    def weight(self, uuid: str) -> float:
        """The entity's rarity (IDF over the user's memories): a name on 3 of 700 memories weighs 5.4."""
        return math.log((self.memories + 1) / (self.mentions.get(uuid, 0) + 1))

    def hubs(self) -> list[str]:
        return [u for u in self.mentions if self.is_hub(u)]


async def entity_table(g: Graphiti, group_id: str) -> EntityTable:
    """The table for one user's graph, cached on the graph loop for TABLE_TTL_S (one query when stale)."""
    state = loop_state()
    key = ("entity-table", group_id)
    table = state.get(key)
    if table is not None and time.monotonic() - table.read_at < TABLE_TTL_S:
        return table
    records, _, _ = await g.driver.execute_query(
        "MATCH (n:Entity) OPTIONAL MATCH (e:Episodic)-[:MENTIONS]->(n) "
        "RETURN n.uuid AS uuid, n.name AS name, count(e) AS mentions"
    )
    counted, _, _ = await g.driver.execute_query("MATCH (e:Episodic) RETURN count(e) AS n")
    user = next((r["uuid"] for r in records if r["name"] == USER_NAME), None)
    table = EntityTable(
        uuid_of={r["name"]: r["uuid"] for r in records if r["name"] != USER_NAME},
        mentions={r["uuid"]: int(r["mentions"]) for r in records},
        memories=int(counted[0]["n"]) if counted else 0,
        user_uuid=user,
        read_at=time.monotonic(),
    )
    state.pop(key, None)
    state[key] = table  # last in, so the oldest tables go first
    cached = [k for k in state if k[0] == "entity-table"]
    for stale in cached[:-MAX_CACHED_TABLES]:
        del state[stale]
    return table


def forget_table(group_id: str) -> None:
    """Drop a user's cached table (their graph was dropped). Call it on the graph loop."""
    loop_state().pop(("entity-table", group_id), None)


def named_entities(table: EntityTable, query: str) -> list[str]:
    """Uuids of the user's entities the query names (extracted and resolved as at sync), each once."""
    entities = extract_entities(query)
    if not entities or not table.uuid_of:
        return []
    resolutions = resolve([e.name for e in entities], list(table.uuid_of))
    return list(dict.fromkeys(table.uuid_of[r.match] for r in resolutions if r.match is not None))


def _valid(rel: str) -> str:
    """Cypher: the fact `rel` holds at $at (stored ISO-8601 UTC strings compare in time order), or
    every fact with $history."""
    return (
        f"($history OR (({rel}.valid_at IS NULL OR {rel}.valid_at <= $at) AND "
        f"({rel}.invalid_at IS NULL OR {rel}.invalid_at > $at) AND ($asof OR {rel}.expired_at IS NULL)))"
    )


# One round trip: the facts on the rare entities the query names, and the facts on the rare entities those
# share a memory with (two hops); never from or through a hub.
WALK = f"""
UNWIND $origins AS o
MATCH (n:Entity {{uuid: o.uuid}})-[r:RELATES_TO]->()
WHERE {_valid("r")}
RETURN r.episodes AS episodes, 1 - vec.cosineDistance(r.fact_embedding, vecf32($qv)) AS cos, o.uuid AS origin,
       o.weight AS weight, 1 AS hop
UNION ALL
UNWIND $origins AS o
MATCH (n:Entity {{uuid: o.uuid}})-[:RELATES_TO]->(m:Entity)
WHERE NOT m.uuid IN $skip
WITH DISTINCT m
MATCH (m)-[r:RELATES_TO]->()
WHERE {_valid("r")}
RETURN r.episodes AS episodes, 1 - vec.cosineDistance(r.fact_embedding, vecf32($qv)) AS cos, '' AS origin,
       0.0 AS weight, 2 AS hop
"""


def _iso(at: datetime) -> str:

    return at.astimezone(UTC).isoformat()


async def walk(
    g: Graphiti,
    group_id: str,
    query: str,
    query_vector: list[float],
    *,
    at: datetime | None,
    include_history: bool,
    now: datetime,
) -> list[tuple[str, float]]:
    """(episode uuid, score) best first: the memories tied to the rare entities the query names (one hop)
    or to the rare entities those share a memory with (two hops)."""
    table = await entity_table(g, group_id)
    rare = [u for u in named_entities(table, query) if not table.is_hub(u)]
    if not rare:
        return []  # nothing named, or only hubs: nothing the graph knows better than Postgres
    records, _, _ = await g.driver.execute_query(
        WALK,
        origins=[{"uuid": u, "weight": table.weight(u)} for u in rare],
        skip=rare + table.hubs(),
        qv=query_vector,
        at=_iso(at or now),
        asof=at is not None,
        history=include_history,
    )
    return score_facts(records)


def score_facts(records: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """Per episode: its closeness to the query (the best of its facts; two hops away it counts SECOND_HOP),
    plus the rarities of the named entities it is on, over the rarest's: a memory naming two of the
    query's rare entities outranks one naming either."""
    top_weight = max((float(r["weight"]) for r in records), default=0.0) or 1.0
    closeness: dict[str, float] = {}
    on: dict[str, dict[str, float]] = {}  # episode -> named entity -> its weight
    for r in records:
        cos = float(r["cos"]) * (SECOND_HOP if r["hop"] == 2 else 1.0)
        for episode in r["episodes"] or ():
            closeness[episode] = max(closeness.get(episode, -1.0), cos)
            if r["hop"] == 1:
                on.setdefault(episode, {})[r["origin"]] = float(r["weight"]) / top_weight
    scored = {ep: cos + sum(on.get(ep, {}).values()) for ep, cos in closeness.items()}
    return sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:FACTS_PER_QUERY]
