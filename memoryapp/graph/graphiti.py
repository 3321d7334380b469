"""The default graph: graphiti-core in-process on FalkorDB, one graph (group id) per user.

Each memory row is one episode (reference time = the memory's valid_from), so every fact (edge)
lists the episodes, hence the memories, that support it. Validity we know for certain (a
superseded memory's valid_until) is written onto the edges only its episode supports; status
(forgotten, deleted) is never written here: recall filters on the rows in Postgres.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from . import (
    clients,  # noqa: F401  (sets GRAPHITI_TELEMETRY_ENABLED before graphiti loads)
    rule_facts,
    walk,
)
from .errors import GraphError, GraphOffline, GraphUnavailable
from .falkor import connect, guard
from .port import GraphEntity, GraphFact, GraphHealth, GraphMap, GraphRelation, MemorySnapshot
from .runner import loop_state, run
from .validity import edge_hybrid_search_bfs_rrf, is_valid, same_time, search_filters

if TYPE_CHECKING:
    from graphiti_core import Graphiti

    from memoryapp.models import Memory

    from .conf import GraphConfig

MAX_CACHED_GRAPHS = 256  # per-user Graphiti instances kept per process (they share one connection pool)


class GraphitiGraph:
    name = "graphiti"

    def __init__(self, config: GraphConfig) -> None:
        if not config.falkordb_url:
            raise GraphUnavailable("FALKORDB_URL is not set")
        self.config = config

    @property
    def needs_llm(self) -> bool:
        # With rules (the default) facts are written without a model; with `model` graphiti extracts them.
        return self.config.extraction == "model"

    # -- the port (sync facade over the loop thread) ------------------------------------------

    @property
    def sync_batch_size(self) -> int:
        # Rule facts cost milliseconds, written a batch at a time; a model's extraction costs seconds per memory.
        return 1 if self.needs_llm else self.config.sync_batch

    def sync_memory(self, memory: Memory) -> str:
        return self.sync_memories([memory])[0]

    def sync_memories(self, memories: list[Memory]) -> list[str]:
        """Sync one user's memories (oldest first) together; their episode ids in order."""
        snaps = [MemorySnapshot.of(memory) for memory in memories]
        if len({snap.user_id for snap in snaps}) > 1:
            raise ValueError("sync_memories takes the memories of one user")
        return self._run(self._sync_batch(snaps), self.config.sync_timeout_s * (len(snaps) if self.needs_llm else 1))

    def purge(self, episode_id: str, user_id: int) -> None:
        if episode_id:
            self._run(self._with_graph(user_id, lambda g: self._purge(g, episode_id)))

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
        coro = self._search(user_id, query, at, limit, include_history, query_vector)
        return self._run(coro, timeout_s if timeout_s is not None else self.config.op_timeout_s)

    def drop_user(self, user_id: int) -> None:
        async def drop(g: Graphiti) -> None:
            walk.forget_table(self.config.graph_name(user_id))  # on the loop, as loop_state asks
            await g.driver.execute_query("MATCH (n) DETACH DELETE n")

        self._run(self._with_graph(user_id, drop))

    def facts_of_user(self, user_id: int) -> list[GraphFact]:
        """Every edge in the user's graph (tests and diagnostics)."""
        return self._run(self._with_graph(user_id, self._all_facts))

    def map_of_user(self, user_id: int, *, limit: int, timeout_s: float | None = None) -> GraphMap:
        """The user's entities (the speaker "User" aside: every fact hangs off it) and the facts that touch
        them, at most `limit` of each, for the memory graph page."""
        coro = self._with_graph(user_id, lambda g: self._map(g, limit))
        return self._run(coro, timeout_s if timeout_s is not None else self.config.op_timeout_s)

    def counts(self, user_id: int) -> dict[str, int]:
        """Entity nodes, fact edges and episodes in the user's graph (benchmarks and diagnostics)."""
        return self._run(self._with_graph(user_id, _counts))

    def health(self) -> GraphHealth:
        started = timezone.now()
        try:
            self._run(self._ping(), min(self.config.op_timeout_s, 5))
        except GraphError as exc:
            return GraphHealth(False, self.name, exc.message)
        ms = (timezone.now() - started).total_seconds() * 1000
        return GraphHealth(True, self.name, "FalkorDB answered", latency_ms=ms)

    # -- plumbing -----------------------------------------------------------------------------

    def _run(self, coro: Any, timeout: float | None = None) -> Any:
        return run(guard(coro), timeout or self.config.op_timeout_s, what=f"the graph (FalkorDB at {self._where()})")

    def _where(self) -> str:
        url = self.config.falkordb_url
        return url.rsplit("@", 1)[-1]  # never log a password

    async def _client(self) -> Any:
        state = loop_state()
        key = ("falkordb", self.config.falkordb_url)
        if key not in state:
            state[key] = connect(self.config.falkordb_url)
        return state[key]

    async def _graph(self, user_id: int) -> Graphiti:
        from graphiti_core import Graphiti
        from graphiti_core.driver.falkordb_driver import FalkorDriver

        from memoryapp.providers.embeddings import get_embedder
        from memoryapp.providers.llm import get_llm

        llm = get_llm() if self.needs_llm else None
        name = self.config.graph_name(user_id)
        key = (
            "graphiti",
            self.config.falkordb_url,
            name,
            self.config.extraction,
            getattr(llm, "name", ""),
            str(getattr(getattr(llm, "client", None), "base_url", "")),
        )
        state = loop_state()
        if key not in state:
            if llm is None and self.needs_llm:
                raise GraphOffline()  # graphiti's extraction needs a model; recall uses Postgres
            client = await self._client()
            await client.connection.ping()  # a down server fails here, before any slow set-up
            llm_client = clients.build_llm_client() if self.needs_llm else clients.NoModelClient()
            # The first use loads the local embedding model (seconds): keep it off the loop.
            embedder = await asyncio.to_thread(get_embedder)
            driver = FalkorDriver(falkor_db=client, database=name)
            init = getattr(driver, "_init_task", None)  # indexes for this user's graph
            if init is not None:
                await init
            state[key] = Graphiti(
                graph_driver=driver,
                llm_client=llm_client,
                embedder=clients.ProviderEmbedder(embedder),
                cross_encoder=clients.RankOrderCrossEncoder(),
            )
            cached = [k for k in state if k[0] == "graphiti"]
            for stale in cached[:-MAX_CACHED_GRAPHS]:  # oldest first: dicts keep insertion order
                del state[stale]
        return state[key]

    async def _with_graph(self, user_id: int, fn: Any) -> Any:
        return await fn(await self._graph(user_id))

    async def _ping(self) -> None:
        client = await self._client()
        await client.connection.ping()

    async def _sync_batch(self, snaps: list[MemorySnapshot]) -> list[str]:
        """Each memory's episode id: kept where the graph already holds its content and time (validity
        refreshed only), else a new episode (rule facts for the whole batch at once, or graphiti's model
        extraction one by one), the memory's previous episode purged."""
        if not snaps:
            return []
        g = await self._graph(snaps[0].user_id)
        out: dict[int, str] = {}
        held = await _episodes(g, [snap.episode_id for snap in snaps if snap.episode_id])
        for snap in snaps:
            episode = held.get(snap.episode_id)
            if episode is not None and episode.content == snap.body and same_time(episode.valid_at, snap.valid_from):
                await self._apply_validity(g, snap.episode_id, snap)  # unchanged: no model calls
                out[snap.id] = snap.episode_id
        changed = [snap for snap in snaps if snap.id not in out]
        if not self.needs_llm:  # new rule facts carry their validity already
            group_id = self.config.graph_name(changed[0].user_id) if changed else ""
            out.update(
                zip([s.id for s in changed], await rule_facts.write_memories(g, changed, group_id, g.embedder.embedder))
            )
        else:
            for snap in changed:
                out[snap.id] = await self._extract_with_model(g, snap)
                await self._apply_validity(g, out[snap.id], snap)
        for snap in changed:
            if snap.episode_id and snap.episode_id != out[snap.id]:
                await self._purge(g, snap.episode_id)  # the memory's content changed: drop its old facts
        return [out[snap.id] for snap in snaps]

    async def _extract_with_model(self, g: Graphiti, snap: MemorySnapshot) -> str:
        from graphiti_core.nodes import EpisodeType

        result = await g.add_episode(
            name=f"memory-{snap.id}",
            episode_body=snap.body,
            source_description=f"memoryapp {snap.kind} memory",
            reference_time=snap.valid_from,
            source=EpisodeType.message,
            group_id=self.config.graph_name(snap.user_id),
        )
        new_id = result.episode.uuid
        # The model may leave a fact's start open; the memory's own start is the honest default.
        await g.driver.execute_query(
            "MATCH ()-[r:RELATES_TO]->() WHERE size(r.episodes) = 1 AND r.episodes[0] = $ep AND r.valid_at IS NULL "
            "SET r.valid_at = $at",
            ep=new_id,
            at=snap.valid_from,
        )
        return new_id

    async def _apply_validity(self, g: Graphiti, episode_id: str, snap: MemorySnapshot) -> None:
        sole = "size(r.episodes) = 1 AND r.episodes[0] = $ep"
        if snap.valid_until is not None:
            # Deterministic, not left to the model: the facts end when the memory was superseded.
            await g.driver.execute_query(
                f"MATCH ()-[r:RELATES_TO]->() WHERE {sole} SET r.invalid_at = $until, r.memoryapp_invalidated = true",
                ep=episode_id,
                until=snap.valid_until,
            )
        else:
            await g.driver.execute_query(
                f"MATCH ()-[r:RELATES_TO]->() WHERE {sole} AND r.memoryapp_invalidated = true "
                "SET r.invalid_at = NULL, r.memoryapp_invalidated = false",
                ep=episode_id,
            )

    async def _purge(self, g: Graphiti, episode_id: str) -> None:
        q = g.driver.execute_query
        # Facts only this episode supported go; shared facts just lose it from their sources.
        await q(
            "MATCH ()-[r:RELATES_TO]->() WHERE size(r.episodes) = 1 AND r.episodes[0] = $ep DELETE r", ep=episode_id
        )
        await q(
            "MATCH ()-[r:RELATES_TO]->() WHERE $ep IN r.episodes SET r.episodes = [x IN r.episodes WHERE x <> $ep]",
            ep=episode_id,
        )
        # Entities that stay may summarise the purged facts: their summary becomes the facts they keep.
        await q(
            "MATCH (ep:Episodic {uuid: $ep})-[:MENTIONS]->(n:Entity) "
            "OPTIONAL MATCH (n)-[r:RELATES_TO]-() WITH n, collect(r.fact) AS facts "
            "SET n.summary = reduce(s = '', f IN facts | CASE WHEN s = '' THEN f ELSE s + '\\n' + f END)",
            ep=episode_id,
        )
        # Entities no other episode mentions and no fact still uses.
        await q(
            "MATCH (ep:Episodic {uuid: $ep})-[:MENTIONS]->(n:Entity) "
            "OPTIONAL MATCH (o:Episodic)-[:MENTIONS]->(n) WHERE o.uuid <> $ep "
            "WITH n, count(o) AS others WHERE others = 0 "
            "OPTIONAL MATCH (n)-[r:RELATES_TO]-() WITH n, count(r) AS facts WHERE facts = 0 "
            "DETACH DELETE n",
            ep=episode_id,
        )
        await q("MATCH (ep:Episodic {uuid: $ep}) DETACH DELETE ep", ep=episode_id)

    async def _search(
        self,
        user_id: int,
        query: str,
        at: datetime | None,
        limit: int,
        include_history: bool,
        query_vector: list[float] | None = None,
    ) -> list[GraphFact]:
        g = await self._graph(user_id)
        if not self.needs_llm:
            if query_vector is None:
                query_vector = await asyncio.to_thread(_embed_query, query)
            # Postgres already searches the same texts by words and meaning; what only the graph adds is the
            # walk from the entities the query names (walk.py). None named: nothing to add.
            episodes = await walk.walk(
                g,
                self.config.graph_name(user_id),
                query,
                query_vector,
                at=at,
                include_history=include_history,
                now=timezone.now(),
            )
            return [GraphFact("", (episode,), score) for episode, score in episodes[: max(limit, 1) * 3]]
        recipe = edge_hybrid_search_bfs_rrf()
        config = recipe.model_copy(update={"limit": max(limit, 1) * 3})
        results = await g.search_(
            query,
            config=config,
            group_ids=[self.config.graph_name(user_id)],
            search_filter=search_filters(at, include_history),
            query_vector=query_vector,
        )
        facts = []
        scores = results.edge_reranker_scores or [0.0] * len(results.edges)
        now = timezone.now()
        for edge, score in zip(results.edges, scores):
            if not is_valid(edge.valid_at, edge.invalid_at, edge.expired_at, at, include_history, now):
                continue  # again in Python: FalkorDB compares the stored ISO strings
            facts.append(
                GraphFact(edge.fact, tuple(edge.episodes), float(score), edge.valid_at, edge.invalid_at, edge.uuid)
            )
        return facts

    async def _all_facts(self, g: Graphiti) -> list[GraphFact]:
        from graphiti_core.edges import EntityEdge

        records, _, _ = await g.driver.execute_query("MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid")
        edges = await EntityEdge.get_by_uuids(g.driver, [r["uuid"] for r in records]) if records else []
        return [GraphFact(e.fact, tuple(e.episodes), 0.0, e.valid_at, e.invalid_at, e.uuid) for e in edges]

    async def _map(self, g: Graphiti, limit: int) -> GraphMap:
        from graphiti_core.helpers import parse_db_date

        q = g.driver.execute_query
        entities, _, _ = await q(
            "MATCH (ep:Episodic)-[:MENTIONS]->(n:Entity) WHERE n.name <> 'User' "
            "RETURN n.uuid AS uuid, n.name AS name, collect(ep.uuid) AS episodes LIMIT $limit",
            limit=limit,
        )
        relations, _, _ = await q(
            "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity) WHERE a.name <> 'User' OR b.name <> 'User' "
            "RETURN a.uuid AS source, b.uuid AS target, r.fact AS fact, r.episodes AS episodes, "
            "r.valid_at AS valid_at, r.invalid_at AS invalid_at LIMIT $limit",
            limit=limit,
        )
        return GraphMap(
            tuple(GraphEntity(r["uuid"], r["name"] or "", tuple(r["episodes"] or ())) for r in entities),
            tuple(
                GraphRelation(
                    r["source"],
                    r["target"],
                    r["fact"] or "",
                    tuple(r["episodes"] or ()),
                    parse_db_date(r["valid_at"]),
                    parse_db_date(r["invalid_at"]),
                )
                for r in relations
            ),
        )


def _embed_query(query: str) -> list[float]:
    from memoryapp.providers.embeddings import get_embedder, query_vector

    return query_vector(get_embedder(), query)


async def _episodes(g: Graphiti, episode_ids: list[str]) -> dict[str, Any]:
    """The episodes the graph still holds, by uuid (one query; the missing ones are left out)."""
    from graphiti_core.nodes import EpisodicNode

    if not episode_ids:
        return {}
    return {episode.uuid: episode for episode in await EpisodicNode.get_by_uuids(g.driver, episode_ids)}


async def _counts(g: Graphiti) -> dict[str, int]:
    out = {}
    for key, query in (
        ("entities", "MATCH (n:Entity) RETURN count(n) AS n"),
        ("edges", "MATCH ()-[r:RELATES_TO]->() RETURN count(r) AS n"),
        ("episodes", "MATCH (n:Episodic) RETURN count(n) AS n"),
    ):
        records, _, _ = await g.driver.execute_query(query)
        out[key] = int(records[0]["n"]) if records else 0
    return out
