"""The change-detection pairs (bench/change_cases/<split>/<language>.json, see its README): each group is an
existing memory and statements written against it, labelled replaces / resembles / restates.

A file is one user's memory store (`store`): its groups' memories are held together, so one file never
holds two memories for the same slot (two cities, two cars). `<language>_cues.json` adds hard
resemblances to its language's main store; any other `<language>_<name>.json` is a store of its own."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent / "change_cases"
SPLITS = ("train", "dev", "holdout")
LABELS = ("replaces", "resembles", "restates")


@dataclass(frozen=True)
class Group:
    id: str
    split: str
    language: str
    kind: str
    existing: str
    statements: tuple[tuple[str, str], ...]  # (label, statement)
    store: str = ""  # which user's store it sits in (its file, see above)


def load_groups(split: str) -> list[Group]:
    groups = []
    for path in sorted((CASES_DIR / split).glob("*.json")):
        for g in json.loads(path.read_text(encoding="utf-8"))["groups"]:
            statements = tuple((label, text) for label in LABELS for text in g.get(label, []))
            language = path.stem.split("_")[0]
            store = language if path.stem.endswith("_cues") else path.stem
            groups.append(Group(g["id"], split, language, g["kind"], g["existing"], statements, store))
    return groups


def split_sha256(split: str) -> str:
    """One hash over the split's files, in name order (the holdout's is recorded with every result)."""
    digest = hashlib.sha256()
    for path in sorted((CASES_DIR / split).glob("*.json")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
