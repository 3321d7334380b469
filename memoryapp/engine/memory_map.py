"""The memory graph page's picture of one user's memories: nodes and links, plain data for its JSON.

Postgres holds no entities, so every install draws what the rows say: each memory (current versions and
the ones they replaced, with their validity windows, so the page can replay them as of any moment), the
supersedes links, the chat each came from, and the names memories share (capitalised words and rare
Chinese words, read as chat relevance reads them: no tagger, a few milliseconds for a thousand memories).
Where the graph tier is on and answers within a short budget, its entities and the facts between them
are added; where it is off, slow or down, the page is complete without them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from memoryapp import graph
from memoryapp.models import Memory, MemoryKind, MemoryStatus

from .learned.relevance import names_in

MAX_MEMORIES = 2000  # the newest; the page says when there are more
MAX_NAMES = 300  # shared names drawn, the most shared first
MAX_GRAPH_ITEMS = 1000  # entities, and facts, asked of the graph
GRAPH_BUDGET_S = 0.4  # the graph's share of the page's one-second goal


def _ms(when: datetime | None) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


@lru_cache(maxsize=16384)
def _names(content: str) -> frozenset[str]:
    return names_in(content)  # the same memory is drawn again on every load and live refresh


def _chains(pairs: list[tuple[int, int]], ids: list[int]) -> dict[int, int]:
    """Each memory's version chain (its oldest version's id): versions of one memory share a name with
    each other by nature, which says nothing about what connects different memories."""
    parent = {i: i for i in ids}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for new, old in pairs:
        a, b = root(new), root(old)
        if a != b:
            parent[max(a, b)] = min(a, b)
    return {i: root(i) for i in ids}


def build(user, *, with_graph: bool = True) -> dict:
    """The user's memory map: {"memories", "chats", "names", "entities", "links", "truncated", "graph"}.

    Memories are active rows, current or replaced (forgotten and deleted ones are not the user's memory
    any more); times are epoch milliseconds. A link is [source, target, type], its ends named by node id
    ("m12", "c3", "n:Berlin", "e:<uuid>"), a fact's followed by its words and validity: a thousand memories
    have thousands of links, and lists keep the JSON a third of the size of objects."""
    rows = list(
        Memory.objects.filter(user=user, status=MemoryStatus.ACTIVE)
        .order_by("-valid_from", "-id")
        .values(
            "id",
            "content",
            "kind",
            "valid_from",
            "valid_until",
            "source_conversation_id",
            "source_conversation__title",
            "graph_episode_id",
        )[: MAX_MEMORIES + 1]
    )
    truncated = len(rows) > MAX_MEMORIES
    rows = rows[:MAX_MEMORIES]
    ids = [r["id"] for r in rows]
    shown = set(ids)
    pairs = [
        (new, old)
        for new, old in Memory.supersedes.through.objects.filter(  # the user's, not an IN of 2,000 ids
            from_memory__user=user
        ).values_list("from_memory_id", "to_memory_id")
        if new in shown and old in shown
    ]
    links = [[f"m{new}", f"m{old}", "supersedes"] for new, old in pairs]

    memories: list[dict] = []
    chats: dict[int, dict] = {}
    for r in rows:
        memories.append(
            {
                "id": f"m{r['id']}",
                "pk": r["id"],
                "content": r["content"],
                "kind": r["kind"],
                "from": _ms(r["valid_from"]),
                "until": _ms(r["valid_until"]),
            }
        )
        chat = r["source_conversation_id"]
        if chat is not None:
            chats.setdefault(chat, {"id": f"c{chat}", "pk": chat, "title": r["source_conversation__title"]})
            links.append([f"m{r['id']}", f"c{chat}", "chat"])

    chain = _chains(pairs, ids)
    holders: dict[str, set[int]] = defaultdict(set)
    for r in rows:
        for name in _names(r["content"]):
            holders[name].add(r["id"])
    shared = sorted(
        ((name, held) for name, held in holders.items() if len({chain[i] for i in held}) >= 2),
        key=lambda item: (-len(item[1]), item[0]),
    )[:MAX_NAMES]
    names = [{"id": f"n:{name}", "name": name} for name, _ in shared]
    for name, held in shared:
        links += [[f"m{i}", f"n:{name}", "name"] for i in sorted(held)]

    entities: list[dict] = []
    state = "off"
    if with_graph and graph.graph_enabled():
        entities, state = _graph_part(user.pk, rows, links)
    return {
        "memories": memories,
        "chats": list(chats.values()),
        "names": names,
        "entities": entities,
        "links": links,
        "truncated": truncated,
        "graph": state,
        "kinds": [{"value": k.value, "label": str(k.label), "icon": k.icon} for k in MemoryKind],
    }


def _graph_part(user_id: int, rows: Sequence[Mapping[str, Any]], links: list[list]) -> tuple[list[dict], str]:
    """The graph's entities linked to the memories whose episodes mention them, and its facts; ("unavailable")
    when it did not answer in time."""
    try:
        found = graph.user_map(user_id, limit=MAX_GRAPH_ITEMS, timeout_s=GRAPH_BUDGET_S)
    except graph.GraphUnavailable:
        return [], "unavailable"
    by_episode = {r["graph_episode_id"]: r["id"] for r in rows if r["graph_episode_id"]}
    entities: list[dict] = []
    drawn: dict[str, dict[str, Any]] = {}
    for entity in found.entities:
        mentioned = sorted({by_episode[e] for e in entity.episode_ids if e in by_episode})
        if not mentioned:
            continue  # only memories this page shows (an episode of a deleted one is not drawn)
        drawn[entity.uuid] = {"id": f"e:{entity.uuid}", "name": entity.name, "facts": []}
        entities.append(drawn[entity.uuid])
        links += [[f"m{i}", f"e:{entity.uuid}", "entity"] for i in mentioned]
    for fact in found.relations:
        if not any(e in by_episode for e in fact.episode_ids):
            continue
        when = {"from": _ms(fact.valid_at), "until": _ms(fact.invalid_at)}
        if fact.source in drawn and fact.target in drawn:
            links.append([f"e:{fact.source}", f"e:{fact.target}", "fact", fact.fact, when["from"], when["until"]])
        else:  # a fact about the user ("User lives in Berlin"): the user is every memory's subject, not drawn
            for end in (fact.source, fact.target):
                if end in drawn:
                    drawn[end]["facts"].append({"text": fact.fact, **when})
    return entities, "on"
