"""What a new statement does to the user's memories: the change pairs (bench/change_cases/) played through
a memory store, the learned model beside the rules.

    python -m bench.changes [--split holdout] [--json OUT]

Per store (a file: one user's memories), the store holds every group's existing memory; each statement meets its nearest ones (as
extraction does: at most NEIGHBOURS, cosine at least NEIGHBOUR_MIN_SIMILARITY) and is decided:
- update_detection: `replaces` statements that superseded their own group's memory / all of them;
- wrong_replacements: statements that superseded a memory they should not have (a resemblance, a
  restatement, or another group's memory) / statements that wrote a memory;
- restate_detection: `restates` statements that wrote nothing / all of them;
- wrong_skips: `replaces` or `resembles` statements that wrote nothing (what the user said is lost) / all of them.
Needs no database: vectors come from the configured embedder (cached under var/cache/).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .change_data import SPLITS, Group, load_groups, split_sha256
from .runtime import REPO, write_result

CACHE_DIR = REPO / "var" / "cache"


def setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")
    import django

    django.setup()


def vectors(texts: list[str]) -> dict[str, np.ndarray]:
    """Unit vectors from the configured embedder, cached per embedder (re-embedding takes a while)."""
    from django.conf import settings

    from memoryapp.providers.embeddings import get_embedder

    name = hashlib.sha1(settings.EMBEDDING_MODEL.encode()).hexdigest()[:10]
    path = CACHE_DIR / f"change_vectors-{name}.npz"
    cache: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path, allow_pickle=False) as stored:
            cache = dict(zip(stored["texts"].tolist(), stored["vectors"]))
    missing = sorted({t for t in texts if t not in cache})
    if missing:
        for start in range(0, len(missing), 64):
            chunk = missing[start : start + 64]
            cache.update(zip(chunk, np.asarray(get_embedder().embed(chunk))))
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        np.savez(path, texts=np.array(list(cache)), vectors=np.array(list(cache.values())))
    return {t: np.asarray(cache[t]) for t in texts}


def texts_of(groups: list[Group]) -> list[str]:
    return [g.existing for g in groups] + [s for g in groups for _, s in g.statements]


def kind_of(statement: str, fallback: str) -> str:
    """The kind the extractor gives the statement with no model (its rules), as the decision sees it."""
    from memoryapp.engine.llm.defaults import classify

    kind = classify(statement)
    return kind.value if kind is not None else fallback


def neighbours_of(v: np.ndarray, store: list[Group], vec: dict[str, np.ndarray]) -> list[tuple[int, float]]:
    """(index into store, cosine) of the nearest existing memories, as extraction finds them."""
    from memoryapp.engine.learning.extraction import NEIGHBOUR_MIN_SIMILARITY, NEIGHBOURS

    sims = np.array([float(v @ vec[g.existing]) for g in store])
    order = np.argsort(-sims)[:NEIGHBOURS]
    return [(int(i), float(sims[i])) for i in order if sims[i] >= NEIGHBOUR_MIN_SIMILARITY]


# A decider takes (statement, its kind, its vector, neighbours as [(Group, cosine)]) and answers
# ("replaces" | "restates" | "other", the neighbour's position or None).
Decider = Callable[[str, str, np.ndarray, list], tuple[str, int | None]]


def learned_decider(model) -> Decider:
    from memoryapp.engine.learned.changes import Existing, choose
    from memoryapp.engine.llm.defaults import rules_see_a_change

    def decide(statement, kind, v, neighbours):
        verdict = choose(
            model,
            statement,
            kind,
            v,
            [Existing(g.existing, g.kind, vec_of[g.existing]) for g, _ in neighbours],
            rules=rules_see_a_change,
        )
        return verdict.label, verdict.index

    vec_of: dict[str, np.ndarray] = {}
    decide.vec_of = vec_of  # filled by play()
    return decide


def rules_decider() -> Decider:
    from memoryapp.engine.learned.model import rules_only
    from memoryapp.engine.llm import defaults
    from memoryapp.engine.llm.schemas import Candidate, CandidateWithNeighbours, DecisionAction, Neighbour

    def decide(statement, kind, v, neighbours):
        item = CandidateWithNeighbours(
            candidate=Candidate(content=statement, kind=kind, importance=0.6, confidence=0.6),
            neighbours=[
                Neighbour(id=i + 1, content=g.existing, kind=g.kind, similarity=round(s, 4))
                for i, (g, s) in enumerate(neighbours)
            ],
        )
        with rules_only():
            decision = defaults.decide([item]).decisions[0]
        position = None if decision.target_id is None else decision.target_id - 1
        if decision.action is DecisionAction.UPDATE:
            return "replaces", position
        if decision.action is DecisionAction.SKIP:
            return "restates", position
        return "other", None

    return decide


def play(groups: list[Group], decide: Decider, vec: dict[str, np.ndarray]) -> dict:
    """Every statement against its store (bench/change_data.py: one per file); the figures per language."""
    if hasattr(decide, "vec_of"):
        decide.vec_of.update(vec)
    out: dict[str, dict] = {}
    for language in sorted({g.language for g in groups}):
        counts = dict.fromkeys(
            (
                "replaces",
                "restates",
                "resembles",
                "written",
                "updated_right",
                "wrong_replacements",
                "restated_skipped",
                "wrong_skips",
            ),
            0,
        )
        stores = [
            [g for g in groups if g.store == name]
            for name in sorted({g.store for g in groups if g.language == language})
        ]
        for store, group, label, statement in ((st, g, lab, t) for st in stores for g in st for lab, t in g.statements):
            near = [(store[i], sim) for i, sim in neighbours_of(vec[statement], store, vec)]
            said, position = decide(statement, kind_of(statement, group.kind), vec[statement], near)
            target = near[position][0] if position is not None else None
            counts[label] += 1
            if said == "restates":
                counts["restated_skipped"] += label == "restates"
                counts["wrong_skips"] += label != "restates"
                continue
            counts["written"] += 1
            if said == "replaces":
                right = label == "replaces" and target is group
                counts["updated_right"] += right
                counts["wrong_replacements"] += not right
        out[language] = {
            "statements": counts["replaces"] + counts["restates"] + counts["resembles"],
            "update_detection": round(counts["updated_right"] / max(counts["replaces"], 1), 4),
            "wrong_replacements": round(counts["wrong_replacements"] / max(counts["written"], 1), 4),
            "restate_detection": round(counts["restated_skipped"] / max(counts["restates"], 1), 4),
            "wrong_skips": round(counts["wrong_skips"] / max(counts["replaces"] + counts["resembles"], 1), 4),
            "counts": counts,
        }
    return out


def run(splits: list[str]) -> dict:
    setup()
    from memoryapp.engine.learned.changes import NAME
    from memoryapp.engine.learned.model import usable

    result: dict = {"benchmark": "bench.changes", "holdout_sha256": split_sha256("holdout"), "by_split": {}}
    model = usable(NAME)
    for split in splits:
        groups = load_groups(split)
        vec = vectors(texts_of(groups))
        part = {"offline": play(groups, rules_decider(), vec)}
        if model is not None:
            part["learned"] = play(groups, learned_decider(model), vec)
        result["by_split"][split] = part
    return result


def print_summary(result: dict) -> None:
    names = ("update_detection", "wrong_replacements", "restate_detection", "wrong_skips")
    print(f"{'':24} {'n':>4} " + " ".join(f"{n[:14]:>14}" for n in names))
    for split, part in result["by_split"].items():
        for decider, by_language in part.items():
            for language, s in by_language.items():
                print(
                    f"{split + ' ' + decider + ' ' + language:24} {s['statements']:4d} "
                    + " ".join(f"{s[n]:14.3f}" for n in names)
                )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.changes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS, default=["dev", "holdout"])
    parser.add_argument("--json", type=Path, help="write the results here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    result = run(args.split)
    print_summary(result)
    if args.json:
        write_result(args.json, result, "bench.changes", sys.argv[1:])


if __name__ == "__main__":
    main()
