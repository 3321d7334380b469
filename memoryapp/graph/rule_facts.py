"""A memory's episode, entities and fact edges written through graphiti's own classes, with no model call
(GRAPH_EXTRACTION=rules, the default).

graphiti's `add_episode` and `add_triplet` both resolve nodes and edges with the model, so this writes the
records graphiti would have written, and its search reads them as its own:

- the memory is one `EpisodicNode` (content "User: ...", valid_at = the memory's valid_from);
- the people, places, organisations, products and projects it names (graph/entities) are `EntityNode`s,
  resolved against the user's graph by normalised name, then by name-embedding similarity; the user is a
  node too ("User"), standing in for memories that name fewer than two entities;
- the memory's text is the fact on `EntityEdge`s between the nodes it names, written both ways so that
  graphiti's BFS (which follows edge direction) walks from any of them; the fact embedding is the memory
  row's own vector (same embedder), so a sync embeds only names the graph has not seen.

A batch of one user's memories is planned together (plan_memories: CPU only) and written with a handful of
queries (write_memories); it writes the graph that syncing them one at a time would.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any

from .entities import extract_entities, normalise_name, resolve
from .falkor import params_header

if TYPE_CHECKING:
    from graphiti_core import Graphiti

    from .port import MemorySnapshot

USER_NAME = "User"
FACT_NAME = "MENTIONED_WITH"  # the relation: named in the same memory
MAX_ENTITIES = 6  # a memory naming more is a list; its first six carry its edges
_NAMESPACE = uuid.UUID("3f0d6f8e-5b8e-4c1e-9a55-2d1f0c9b7e21")

_name_vectors: dict[str, list[float]] = {}  # normalised name -> embedding (pure function of the text)


def node_uuid(group_id: str, key: str) -> str:
    """One node per user and normalised name: two workers naming the same new entity write one node."""
    return str(uuid.uuid5(_NAMESPACE, f"{group_id}\x1f{key}"))


def user_uuid(group_id: str) -> str:
    return node_uuid(group_id, "\x00user")


async def known_entities(g: Graphiti) -> dict[str, str]:
    """name -> uuid of the entity nodes already in this user's graph (one graph per user)."""
    records, _, _ = await g.driver.execute_query("MATCH (n:Entity) RETURN n.uuid AS uuid, n.name AS name")
    return {r["name"]: r["uuid"] for r in records if r["name"] != USER_NAME}


def _embed_names(embedder: Any, keys: list[str]) -> list[list[float]]:
    missing = [k for k in dict.fromkeys(keys) if k not in _name_vectors]
    if missing:
        _name_vectors.update(zip(missing, embedder.embed(missing)))
    return [_name_vectors[k] for k in keys]


def _named_in(text: str) -> list:
    """The entities `text` names, each normalised name once, at most MAX_ENTITIES."""
    entities, seen = [], set()
    for entity in extract_entities(text):
        key = normalise_name(entity.name)
        if key and key not in seen:
            seen.add(key)
            entities.append(entity)
    return entities[:MAX_ENTITIES]


def _resolve_nodes(
    group_id: str, entities: list, embedder: Any, known: dict[str, str]
) -> list[tuple[str, str, list[str]]]:
    """(uuid, name, labels) of `entities`, resolved to the known nodes where they exist (labels only for new ones)."""
    if not entities:
        return []
    embed = (lambda texts: _embed_names(embedder, list(texts))) if known else None
    resolutions = resolve([e.name for e in entities], list(known), embed)
    out: dict[str, tuple[str, str, list[str]]] = {}  # two names resolving to one node count once
    for entity, resolution in zip(entities, resolutions):
        if resolution.match is not None:
            node = (known[resolution.match], resolution.match, [])
        else:
            node = (node_uuid(group_id, normalise_name(entity.name)), entity.name, [entity.type.value.capitalize()])
        out.setdefault(node[0], node)
    return list(out.values())


def plan_memories(snaps: list[MemorySnapshot], group_id: str, embedder: Any, known: dict[str, str]) -> Any:
    """The episodes, new entity nodes, fact edges and mentions for `snaps`, oldest first, as one-at-a-time
    syncs would write them: each memory resolves its names against the user's graph *and* the entities
    the memories before it in the batch created, so a name shared across the batch is one node. CPU only
    (run it off the loop); every name the batch needs is embedded in one embedder call."""
    from graphiti_core.edges import EntityEdge, EpisodicEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
    from graphiti_core.utils.datetime_utils import utc_now

    known = dict(known)  # grows with the batch's own new entities
    named_per_memory = [_named_in(snap.content) for snap in snaps]
    _embed_names(
        embedder,
        [normalise_name(e.name) for named in named_per_memory for e in named]
        + [normalise_name(name) for name in known],
    )
    missing = [snap.body for snap in snaps if not snap.embedding]
    body_vectors = dict(zip(missing, embedder.embed(missing))) if missing else {}
    now = utc_now()
    episodes, nodes, edges, mentions = [], {}, [], []
    for snap, entities in zip(snaps, named_per_memory):
        named = _resolve_nodes(group_id, entities, embedder, known)
        if len(named) < 2:  # a memory about the user alone, or the user and one thing
            named = [(user_uuid(group_id), USER_NAME, ["Person"]), *named]
        for uuid_, name, labels in named:
            if labels and uuid_ not in nodes:  # new to the graph: written once, known to the rest of the batch
                nodes[uuid_] = EntityNode(
                    uuid=uuid_,
                    name=name,
                    group_id=group_id,
                    labels=["Entity", *labels],
                    name_embedding=_embed_names(embedder, [normalise_name(name)])[0],
                    created_at=now,
                )
                if name != USER_NAME:
                    known[name] = uuid_
        episode = EpisodicNode(
            name=f"memory-{snap.id}",
            group_id=group_id,
            source=EpisodeType.message,
            source_description=f"memoryapp {snap.kind} memory",
            content=snap.body,
            valid_at=snap.valid_from,
            created_at=now,
        )
        # A superseded memory's facts end when it was superseded (as _apply_validity would set them).
        ended = {"memoryapp_invalidated": True} if snap.valid_until is not None else {}
        fact_vector = snap.embedding or body_vectors[snap.body]
        pairs = [(a[0], b[0]) for a, b in zip(named, named[1:])] or [(named[0][0], named[0][0])]
        own = [
            EntityEdge(
                source_node_uuid=s,
                target_node_uuid=t,
                name=FACT_NAME,
                fact=snap.content,
                group_id=group_id,
                episodes=[episode.uuid],
                fact_embedding=fact_vector,
                valid_at=snap.valid_from,
                invalid_at=snap.valid_until,
                reference_time=snap.valid_from,
                created_at=now,
                attributes=dict(ended),
            )
            for a, b in pairs
            for s, t in ({(a, b), (b, a)})
        ]
        episode.entity_edges = [e.uuid for e in own]
        episodes.append(episode)
        edges.extend(own)
        mentions.extend(
            EpisodicEdge(source_node_uuid=episode.uuid, target_node_uuid=u, group_id=group_id, created_at=now)
            for u, _, _ in named
        )
    return episodes, list(nodes.values()), edges, mentions


async def write_memories(g: Graphiti, snaps: list[MemorySnapshot], group_id: str, embedder: Any) -> list[str]:
    """Write each memory (one user's, oldest first) as a new episode with its entities and facts; return the
    episodes' uuids in order. One lookup of the user's entities, then a handful of UNWIND queries for the
    whole batch: graphiti's own queries for its records (entity nodes by label set, where graphiti's bulk
    writer sends one query per node; nodes and facts with their embeddings through falkor.params_header)."""
    if not snaps:
        return []
    known = await known_entities(g)
    episodes, nodes, edges, mentions = await asyncio.to_thread(plan_memories, snaps, group_id, embedder, known)
    graph = g.driver.client.select_graph(group_id)
    await _save_entity_nodes(graph, nodes)
    await _save_episodes(graph, episodes, mentions)
    await _save_entity_edges(graph, edges)
    return [episode.uuid for episode in episodes]


async def _save_episodes(graph: Any, episodes: list, mentions: list) -> None:
    """The episodes and their MENTIONS edges: graphiti's bulk queries, with the records as its bulk writer
    makes them."""
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.models.edges.edge_db_queries import get_episodic_edge_save_bulk_query
    from graphiti_core.models.nodes.node_db_queries import get_episode_node_save_bulk_query

    rows = []
    for episode in episodes:
        row = dict(episode)
        row["source"] = str(row["source"].value)
        row.pop("labels", None)
        rows.append(row)
    await graph.query(params_header(episodes=rows) + get_episode_node_save_bulk_query(GraphProvider.FALKORDB))
    await graph.query(
        params_header(episodic_edges=[m.model_dump() for m in mentions])
        + get_episodic_edge_save_bulk_query(GraphProvider.FALKORDB)
    )


async def _save_entity_nodes(graph: Any, nodes: list) -> None:
    """graphiti's FalkorDB node upsert (MERGE on uuid, labels, properties, vecf32 name embedding), one UNWIND
    per label set instead of one query per node."""
    by_labels: dict[str, list[dict]] = {}
    for node in nodes:
        labels = sorted(set(node.labels) | {"Entity"})
        assert all(label.isidentifier() for label in labels), labels  # labels are Cypher, not parameters
        by_labels.setdefault(":".join(labels), []).append(
            {
                **(node.attributes or {}),
                **{
                    "uuid": node.uuid,
                    "name": node.name,
                    "group_id": node.group_id,
                    "summary": node.summary,
                    "created_at": node.created_at,
                    "name_embedding": node.name_embedding,
                },
            }
        )
    for labels, rows in by_labels.items():
        await graph.query(
            params_header(nodes=rows)
            + (
                f"UNWIND $nodes AS node MERGE (n:Entity {{uuid: node.uuid}}) SET n:{labels} SET n = node "
                "WITH n, node SET n.name_embedding = vecf32(node.name_embedding) RETURN n.uuid AS uuid"
            )
        )


# graphiti's FalkorDB fact upsert (get_entity_edge_save_bulk_query), except that each embedding is sent once
# in $vectors and the facts point at it: a memory's facts share its vector (both directions, each pair), and
# parsing the vectors was most of FalkorDB's time on a batch.
SAVE_FACTS = """
    UNWIND $entity_edges AS edge
    MATCH (source:Entity {uuid: edge.source_node_uuid})
    MATCH (target:Entity {uuid: edge.target_node_uuid})
    MERGE (source)-[r:RELATES_TO {uuid: edge.uuid}]->(target)
    SET r = edge
    SET r.fact_embedding = vecf32($vectors[edge.vector]), r.vector = NULL
    RETURN edge.uuid AS uuid
"""


async def _save_entity_edges(graph: Any, edges: list) -> None:
    """The facts, with the properties graphiti's bulk writer gives them (attributes beside the fields, never
    over them)."""
    if not edges:
        return
    rows, vectors, index = [], [], {}
    for edge in edges:
        key = edge.episodes[0]  # a new fact has its memory's episode alone, and the memory's vector
        if key not in index:
            index[key] = len(vectors)
            vectors.append(edge.fact_embedding)
        row = {
            "uuid": edge.uuid,
            "source_node_uuid": edge.source_node_uuid,
            "target_node_uuid": edge.target_node_uuid,
            "name": edge.name,
            "fact": edge.fact,
            "group_id": edge.group_id,
            "episodes": edge.episodes,
            "created_at": edge.created_at,
            "expired_at": edge.expired_at,
            "valid_at": edge.valid_at,
            "invalid_at": edge.invalid_at,
            "reference_time": edge.reference_time,
            "vector": index[key],
        }
        rows.append({**(edge.attributes or {}), **row})
    await graph.query(params_header(entity_edges=rows, vectors=vectors) + SAVE_FACTS)
