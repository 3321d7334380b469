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
"""
from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any

from .entities import extract_entities, normalise_name, resolve

if TYPE_CHECKING:
    from graphiti_core import Graphiti

    from .graphiti import MemorySnapshot

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


async def named_nodes(g: Graphiti, group_id: str, text: str, language: str | None, embedder: Any,
                      known: dict[str, str]) -> list[tuple[str, str, list[str]]]:
    """(uuid, name, labels) of the entities `text` names, resolved to the user's nodes where they exist."""
    entities, seen = [], set()
    for entity in extract_entities(text, language or None):
        key = normalise_name(entity.name)
        if key and key not in seen:
            seen.add(key)
            entities.append(entity)
    entities = entities[:MAX_ENTITIES]
    if not entities:
        return []
    embed = (lambda texts: _embed_names(embedder, list(texts))) if known else None
    resolutions = await asyncio.to_thread(resolve, [e.name for e in entities], list(known), embed)
    out: dict[str, tuple[str, str, list[str]]] = {}  # two names resolving to one node count once
    for entity, resolution in zip(entities, resolutions):
        if resolution.match is not None:
            node = (known[resolution.match], resolution.match, [])
        else:
            node = (node_uuid(group_id, normalise_name(entity.name)), entity.name, [entity.type.value.capitalize()])
        out.setdefault(node[0], node)
    return list(out.values())


async def write_memory(g: Graphiti, snap: MemorySnapshot, group_id: str, embedder: Any) -> str:
    """Write the memory as a new episode with its entities and facts; return the episode's uuid."""
    from graphiti_core.edges import EntityEdge, EpisodicEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
    from graphiti_core.utils.datetime_utils import utc_now

    known = await known_entities(g)
    named = await named_nodes(g, group_id, snap.content, None, embedder, known)
    known_uuids = set(known.values())
    if len(named) < 2:  # a memory about the user alone, or the user and one thing
        named = [(user_uuid(group_id), USER_NAME, ["Person"]), *named]
    now = utc_now()
    episode = EpisodicNode(
        name=f"memory-{snap.id}", group_id=group_id, source=EpisodeType.message,
        source_description=f"memoryapp {snap.kind} memory", content=snap.body, valid_at=snap.valid_from,
        created_at=now,
    )
    new_nodes = [n for n in named if n[0] not in known_uuids]
    vectors = await asyncio.to_thread(_embed_names, embedder, [normalise_name(name) for _, name, _ in new_nodes])
    nodes = [EntityNode(uuid=u, name=name, group_id=group_id, labels=["Entity", *labels], name_embedding=v,
                        created_at=now) for (u, name, labels), v in zip(new_nodes, vectors)]
    fact_vector = snap.embedding or (await asyncio.to_thread(embedder.embed, [snap.body]))[0]
    pairs = [(a[0], b[0]) for a, b in zip(named, named[1:])] or [(named[0][0], named[0][0])]
    edges = [
        EntityEdge(source_node_uuid=s, target_node_uuid=t, name=FACT_NAME, fact=snap.content, group_id=group_id,
                   episodes=[episode.uuid], fact_embedding=fact_vector, valid_at=snap.valid_from,
                   reference_time=snap.valid_from, created_at=now)
        for a, b in pairs for s, t in ({(a, b), (b, a)})
    ]
    episode.entity_edges = [e.uuid for e in edges]
    mentions = [EpisodicEdge(source_node_uuid=episode.uuid, target_node_uuid=u, group_id=group_id, created_at=now)
                for u, _, _ in named]
    await add_nodes_and_edges_bulk(g.driver, [episode], mentions, nodes, edges, g.embedder)
    return episode.uuid
