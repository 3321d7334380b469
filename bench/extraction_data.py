"""The labelled chat windows of bench.extraction (bench/extraction_cases/<split>/windows.json).

Each window: the user's `existing` memories (keyed), the chat `messages`, and the memories it must yield
(`expected`: kind, the words that must survive, the existing memory it supersedes if any). Split `dev` is
what extractors may be tuned on; `holdout` was written apart and is only measured. Every `*.json` of a
split folder is read; a window's `source` is its file's name (holdout `changes`: stated changes and their
look-alikes in en, zh and across the two, language `cross`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent / "extraction_cases"
SPLITS = ("dev", "holdout")
KINDS = ("preference", "fact", "lesson", "goal")


@dataclass(frozen=True)
class Existing:
    key: str
    content: str
    kind: str


@dataclass(frozen=True)
class Expected:
    kind: str
    must_contain: tuple[str, ...]
    supersedes: str | None = None
    text: str = ""  # the user's own words that hold it, where the window gives them


@dataclass(frozen=True)
class Window:
    id: str
    split: str
    language: str
    category: str
    existing: tuple[Existing, ...]
    messages: tuple[tuple[str, str], ...]
    expected: tuple[Expected, ...]
    source: str = "windows"


def parse_window(raw: dict, split: str, source: str = "windows") -> Window:
    existing = tuple(Existing(e["key"], e["content"], e.get("kind", "fact")) for e in raw.get("existing", []))
    keys = {e.key for e in existing}
    expected = tuple(
        Expected(x["kind"], tuple(x["must_contain"]), x.get("supersedes"), x.get("text", "")) for x in raw["expected"]
    )
    for item in expected:
        if item.kind not in KINDS or (item.supersedes is not None and item.supersedes not in keys):
            raise ValueError(f"window {raw['id']}: bad expected memory {item}")
    messages = tuple((m["role"], m["content"]) for m in raw["messages"])
    return Window(raw["id"], split, raw["language"], raw["category"], existing, messages, expected, source)


def load_windows(splits: tuple[str, ...] = SPLITS, folder: Path = CASES_DIR) -> list[Window]:
    windows = []
    for split in splits:
        for path in sorted((folder / split).glob("*.json")):
            windows += [parse_window(raw, split, path.stem) for raw in json.loads(path.read_text())["windows"]]
    return windows
