"""The written entity cases (bench/entity_cases/<split>/*.jsonl, see its README)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent / "entity_cases"
SPLITS = ("dev", "holdout")


@dataclass(frozen=True)
class Case:
    id: str
    split: str
    language: str
    text: str
    entities: tuple[tuple[str, str], ...]  # (name, type)


def load_cases(split: str) -> list[Case]:
    cases = []
    for path in sorted((CASES_DIR / split).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                cases.append(
                    Case(
                        row["id"],
                        split,
                        row["language"],
                        row["text"],
                        tuple((e["name"], e["type"]) for e in row["entities"]),
                    )
                )
    return cases


def split_sha256(split: str) -> str:
    """One hash over the split's files, in name order (recorded with every result)."""
    digest = hashlib.sha256()
    for path in sorted((CASES_DIR / split).glob("*.jsonl")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class ResolutionCase:
    id: str
    language: str
    name: str
    known: tuple[str, ...]
    same_as: str | None  # the known name it is, or None: a new entity


def load_resolution_cases(split: str) -> list[ResolutionCase]:
    """bench/entity_cases/resolution/<split>.jsonl: a new name, the names already known, and which it is."""
    cases = []
    for path in [CASES_DIR / "resolution" / f"{split}.jsonl"]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                cases.append(
                    ResolutionCase(row["id"], row["language"], row["name"], tuple(row["known"]), row["same_as"])
                )
    return cases
