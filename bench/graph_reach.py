"""How much of LoCoMo's evidence the rules-built graph can reach at all, and from where (issue #34).

    python -m bench.graph_reach [--samples conv-26 conv-30 conv-41] [--json OUT]

Each sample's turns are ingested and synced into the graph as in bench.locomo; the graph's entities and
which memories mention them are then read back once, and for every question it counts, per category:

- named: the query names at least one of the user's entities; named_rare: one that is not a hub;
- gold_rare: the share of gold memories that mention any non-hub entity at all (the ceiling of any walk
  over named entities);
- hop1 / hop2: the share of gold memories that mention a non-hub entity the query names, or one that
  shares a memory with such an entity (two hops), and how many memories those walks reach (their cost);
- words: as hop1, also from the non-hub entities whose every name word (3+ letters) the query says;
- missed / missed_rare: the share of gold memories Postgres recall (graph off) missed in its top 10, and of
  those that mention a non-hub entity (the ceiling of what any walk over entities could add);
- seed: the share of gold memories Postgres missed that share a non-hub entity with one of its top 10
  (what expanding Postgres' finds through the graph could add).

Then each STRATEGY's hits (computed here in Python over the graph read back, handed to recall as its graph)
are fused with Postgres recall as the app fuses them, recall@10 per category; ":alone" is the hits alone.
This is the choosing harness (dev only); bench.locomo --graph measures what the app's walk does.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np

from . import graph as graph_bench
from . import runtime
from .dataset import CATEGORY_NAMES, load, recall_questions
from .metrics import RecallTally

logger = logging.getLogger("bench.graph_reach")
DEV = ("conv-26", "conv-30", "conv-41")
_WORD = re.compile(r"\w+")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.graph_reach", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=runtime.LOCOMO_DATA)
    parser.add_argument("--samples", nargs="+", default=list(DEV))
    parser.add_argument("--json", type=Path)
    return parser.parse_args(argv)


def read_graph(user_id: int) -> tuple[dict[str, str], dict[str, set[str]]]:
    """(entity uuid -> name, memory episode uuid -> entity uuids it mentions), the user node included."""
    from memoryapp.graph import get_graph

    graph = get_graph()

    async def dump(g):
        q = g.driver.execute_query
        names, _, _ = await q("MATCH (n:Entity) RETURN n.uuid AS uuid, n.name AS name")
        mentions, _, _ = await q("MATCH (e:Episodic)-[:MENTIONS]->(n:Entity) RETURN e.uuid AS ep, n.uuid AS n")
        return names, mentions

    names, mentions = graph._run(graph._with_graph(user_id, dump))
    by_episode: dict[str, set[str]] = defaultdict(set)
    for row in mentions:
        by_episode[row["ep"]].add(row["n"])
    return {r["uuid"]: r["name"] for r in names}, by_episode


def run(args: argparse.Namespace) -> dict:
    os.environ["GRAPH_RECALL"] = "on"
    runtime.setup_django()
    from django.conf import settings

    from memoryapp.engine.recall.recall import recall
    from memoryapp.graph.entities import extract_entities, resolve
    from memoryapp.graph.rule_facts import USER_NAME
    from memoryapp.models import Memory
    from memoryapp.providers.embeddings import get_embedder, query_vector

    from .ingest import ingest
    from .variants import baseline

    config = baseline(10)
    embedder = get_embedder()
    rows: dict[int, list[dict]] = defaultdict(list)
    tallies: dict[str, RecallTally] = {}
    for sample in [s for s in load(args.data) if s.sample_id in args.samples]:
        data = ingest(sample, Path(settings.VAR_DIR) / "embcache")
        graph_bench.sync_user(data.user.pk, data.ids)
        names, mentions = read_graph(data.user.pk)
        episode_of = dict(Memory.objects.filter(user_id=data.user.pk).values_list("id", "graph_episode_id"))
        entities_of = {m: mentions.get(ep, set()) for m, ep in episode_of.items()}
        df: dict[str, int] = defaultdict(int)
        for ents in entities_of.values():
            for e in ents:
                df[e] += 1
        hub_df = max(len(entities_of) // 20, 8)  # on more than 5 % of the memories
        hubs = {e for e, n in df.items() if n > hub_df or names.get(e) == USER_NAME}
        memories_of: dict[str, set[int]] = defaultdict(set)
        for m, ents in entities_of.items():
            for e in ents:
                memories_of[e].add(m)
        by_name = {name: uuid for uuid, name in names.items() if name != USER_NAME}
        asked_at = max(t.when for t in sample.turns if t.when) + timedelta(days=1)
        logger.info(
            "%s: %d memories, %d entities, %d hubs: %s",
            sample.sample_id,
            len(entities_of),
            len(names),
            len(hubs),
            sorted(names[h] for h in hubs),
        )
        vectors = {m: np.asarray(v, dtype=np.float32) for m, v in zip(data.ids, data.vectors)}
        world = World(entities_of, memories_of, hubs, df, len(entities_of), vectors, episode_of)
        for q in recall_questions(sample):
            gold = {data.memory_of[d] for d in q.evidence if d in data.memory_of}
            found = [
                r.match
                for r in resolve([e.name for e in extract_entities(q.question)], list(by_name))
                if r.match is not None
            ]
            named = {by_name[n] for n in found}
            rare = named - hubs
            hop1 = set().union(*(memories_of[e] for e in rare)) if rare else set()
            near = {e for m in hop1 for e in entities_of[m]} - hubs
            hop2 = set().union(*(memories_of[e] for e in near)) if near else set()
            vector = query_vector(embedder, q.question)
            top = [
                i.memory.pk
                for i in recall(
                    data.user, q.question, config=config, k=10, at=asked_at, query_vector=vector, record_access=False
                ).items
            ]
            missed = gold - set(top)
            seed_ents = {e for m in top for e in entities_of.get(m, ())} - hubs
            seed = set().union(*(memories_of[e] for e in seed_ents)) if seed_ents else set()
            words = {t.casefold() for t in _WORD.findall(q.question)}
            world.word_named = {
                uuid
                for name, uuid in by_name.items()
                if uuid not in hubs
                and (ws := [x.casefold() for x in _WORD.findall(name) if len(x) > 2])
                and set(ws) <= words
            }
            word_hop1 = set().union(*(memories_of[e] for e in world.word_named)) if world.word_named else set()
            retrieved = {"off": top}
            for name, (strategy, weight) in STRATEGIES.items():
                hits = strategy(world, named, np.asarray(vector, dtype=np.float32))
                fake = FakeGraph(world, hits)
                cfg = graph_bench.with_graph(config, True, 5000, weight)
                retrieved[name] = [
                    i.memory.pk
                    for i in recall(
                        data.user,
                        q.question,
                        config=cfg,
                        k=10,
                        at=asked_at,
                        query_vector=vector,
                        record_access=False,
                        graph=fake,
                    ).items
                ]
                retrieved[name + ":alone"] = [m for m, _ in hits[:10]]
            for name, ids in retrieved.items():
                tallies.setdefault(name, RecallTally([10])).add(q.category, ids, q.evidence, data.turns_of)
            rows[q.category].append(
                {
                    "named": bool(named),
                    "named_rare": bool(rare),
                    "gold_rare": _share({m for m in gold if entities_of.get(m, set()) - hubs}, gold),
                    "hop1": _share(hop1 & gold, gold),
                    "words": _share((hop1 | word_hop1) & gold, gold),
                    "missed_rare": _share({m for m in missed if entities_of.get(m, set()) - hubs}, gold),
                    "hop1_size": len(hop1),
                    "hop2": _share(hop2 & gold, gold),
                    "hop2_size": len(hop2),
                    "missed": _share(missed, gold),
                    "seed": _share(seed & missed, gold),
                    "seed_size": len(seed),
                }
            )
        graph_bench.drop_user(data.user.pk)
        data.user.delete()
    reach = {CATEGORY_NAMES[c]: _means(r) for c, r in sorted(rows.items())} | {
        "all": _means([r for rs in rows.values() for r in rs])
    }
    return {
        "reach": reach,
        "strategies": {
            name: {"all": t.overall()["10"], **{CATEGORY_NAMES[int(c)]: v["10"] for c, v in t.by_category().items()}}
            for name, t in tallies.items()
        },
    }


@dataclass
class World:
    entities_of: dict
    memories_of: dict
    hubs: set
    df: dict
    n: int
    vectors: dict
    episode_of: dict
    word_named: set = frozenset()  # set per question: entities whose every name word the query says

    def idf(self, e: str) -> float:
        return math.log(self.n / max(self.df.get(e, 1), 1))

    def ranked(self, scores: dict[int, float], limit: int = 20) -> list[tuple[int, float]]:
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


class FakeGraph:
    """Stands in for the adapter in this simulation only: returns the strategy's hits as facts."""

    name = "simulated"

    def __init__(self, world: World, hits):
        self.world, self.hits = world, hits

    def search(self, user_id, query, **kwargs):
        from memoryapp.graph.port import GraphFact

        return [GraphFact("", (self.world.episode_of[m],), s) for m, s in self.hits]


def _cos(w: World, m: int, qv) -> float:
    return float(w.vectors[m] @ qv) if m in w.vectors else 0.0


def joint_walk(w: World, named: set, qv, two_hops: bool = True, hubs_alone: bool = True, idf_bonus: float = 0.0):
    """Facts on the named entities (hubs too), ranked by the query's cosine; two hops through rare ones."""
    rare = named - w.hubs
    if not rare and not hubs_alone:
        return []
    scores: dict[int, float] = {}
    for e in named:
        for m in w.memories_of[e]:
            s = _cos(w, m, qv) + idf_bonus * w.idf(e)
            scores[m] = max(scores.get(m, -9), s) if e in w.hubs else scores.get(m, 0) + s
    if two_hops:
        near = {e for r in rare for m in w.memories_of[r] for e in w.entities_of[m]} - w.hubs - named
        for e in near:
            for m in w.memories_of[e]:
                scores.setdefault(m, 0.8 * _cos(w, m, qv))
    return w.ranked(scores)


def rare_walk(w: World, named: set, qv, two_hops: bool = True):
    return joint_walk(w, named - w.hubs, qv, two_hops, hubs_alone=False)


# Measured on dev (docs/benchmarks/locomo-graph.md): the hubs' facts ranked by closeness ("joint", hubs_alone) cost
# recall at every weight tried (0.5, 1, 1.5); walks from rare entities only left it unchanged.
STRATEGIES = {
    "rare2": (rare_walk, 1.0),
    "rare2_words": (lambda w, n, q: rare_walk(w, n | w.word_named, q), 1.0),
    "joint2_w0.25": (joint_walk, 0.25),
}


def _share(part: set, whole: set) -> float:
    return len(part) / len(whole) if whole else 0.0


def _means(rows: list[dict]) -> dict:
    return {"n": len(rows), **{key: round(sum(float(r[key]) for r in rows) / len(rows), 3) for key in rows[0]}}


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    args = parse_args(argv)
    result = run(args)
    for category, values in result["reach"].items():
        print(category, values)
    for name, values in result["strategies"].items():
        print(f"{name:<22}", "  ".join(f"{k}={v:.3f}" for k, v in values.items()))
    if args.json:
        runtime.write_result(args.json, result, "bench.graph_reach", argv)


if __name__ == "__main__":
    main()
