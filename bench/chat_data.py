"""The chat-path cases of bench.chat: persona files under bench/chat_cases/<split>/ and LoCoMo-derived turns.

A persona file holds the user's stored memories (each with a key) and cases: a short conversation
(`history`), the new `message`, the memory keys it `needs` and those that are `relevant` to it
(needs ⊆ relevant; both empty for a turn that needs no memory). Split `dev` is what the engine was
tuned on; `holdout` was written apart and is only measured. Format: bench/chat_cases/README.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path

from .dataset import Sample

CASES_DIR = Path(__file__).resolve().parent / "chat_cases"
SPLITS = ("dev", "holdout")
# Time travel: memories with versions (valid_from, replaced_by), asked about the past, the present after a
# change, and plans; dated, so a run counts back from the day they were written (`written_on`).
EXTRA_SPLITS = ("past",)
LANGUAGES = ("en", "zh", "mixed")
SHAPES = (
    "after_unrelated",
    "follow_up",
    "topic_switch",
    "cross_language",
    "direct",
    "chitchat",
    "general",
    "third_person",  # asks on behalf of someone else (a friend, neighbour, cousin...): none, unless the user's own part
    "locomo",
    "past",
    "after_change",
    "plan",
)


@dataclass(frozen=True)
class StoredMemory:
    key: str
    content: str
    kind: str = "fact"
    valid_from: object = None
    context: str = ""
    replaced_by: str = ""  # the key of the version that replaced this one (it starts at that one's valid_from)


@dataclass(frozen=True)
class ChatCase:
    id: str
    language: str
    shape: str
    history: tuple[tuple[str, str], ...]  # (role, content), oldest first
    message: str
    needs: frozenset[str]
    relevant: frozenset[str]

    @property
    def needs_memory(self) -> bool:
        return bool(self.needs)


@dataclass
class Persona:
    name: str
    split: str
    memories: list[StoredMemory] = field(default_factory=list)
    cases: list[ChatCase] = field(default_factory=list)
    now: datetime | None = None  # the day the cases were written, for questions about the past


class CaseFileError(ValueError):
    pass


def _noon(day: str | None) -> datetime | None:
    return datetime.combine(date.fromisoformat(day), time(12), tzinfo=UTC) if day else None


def parse_persona(raw: dict, split: str, source: str = "<data>") -> Persona:
    memories = [
        StoredMemory(
            m["key"],
            m["content"],
            m.get("kind", "fact"),
            _noon(m.get("valid_from")),
            replaced_by=m.get("replaced_by", ""),
        )
        for m in raw["memories"]
    ]
    keys = {m.key for m in memories}
    if len(keys) != len(memories):
        raise CaseFileError(f"{source}: memory keys repeat")
    starts = {m.key: m.valid_from for m in memories}
    for m in memories:
        if m.replaced_by and (
            m.replaced_by not in keys
            or not m.valid_from
            or not starts[m.replaced_by]
            or starts[m.replaced_by] <= m.valid_from
        ):
            raise CaseFileError(f"{source}: {m.key} must be replaced by a dated memory that starts after it")
    persona = Persona(raw["persona"], split, memories, now=_noon(raw.get("written_on")))
    for case in raw["cases"]:
        needs, relevant = frozenset(case["needs"]), frozenset(case["relevant"]) | frozenset(case["needs"])
        if not relevant <= keys:
            raise CaseFileError(f"{source}: case {case['id']} names unknown memories {sorted(relevant - keys)}")
        if case["language"] not in LANGUAGES or case["shape"] not in SHAPES:
            raise CaseFileError(
                f"{source}: case {case['id']} has language {case['language']!r}, shape {case['shape']!r}"
            )
        history = tuple((turn["role"], turn["content"]) for turn in case["history"])
        persona.cases.append(
            ChatCase(case["id"], case["language"], case["shape"], history, case["message"], needs, relevant)
        )
    return persona


def load_personas(splits: tuple[str, ...] = SPLITS, folder: Path = CASES_DIR) -> list[Persona]:
    personas = []
    for split in splits:
        for path in sorted((folder / split).glob("*.json")):
            personas.append(parse_persona(json.loads(path.read_text()), split, str(path)))
    return personas


def locomo_persona(sample: Sample, questions_per_sample: int, history_turns: int = 2) -> Persona:
    """A LoCoMo conversation as a chat user: every turn a memory (keyed by dia_id, dated by its session),
    and evenly spread category 1-4 questions asked after the conversation's last `history_turns` turns,
    which alternate as the user's and the assistant's. The question needs its evidence turns."""
    from .dataset import recall_questions

    memories = [StoredMemory(turn.dia_id, turn.content, "fact", turn.when) for turn in sample.turns]
    tail = [turn.content for turn in sample.turns[-history_turns:]]
    history = tuple(("user" if i % 2 == 0 else "assistant", text) for i, text in enumerate(tail))
    questions = recall_questions(sample)
    step = max(1, len(questions) // max(1, questions_per_sample))
    persona = Persona(f"locomo-{sample.sample_id}", "locomo", memories)
    for index, question in enumerate(questions[::step][:questions_per_sample]):
        evidence = frozenset(question.evidence)
        persona.cases.append(
            ChatCase(f"{sample.sample_id}-q{index}", "en", "locomo", history, question.question, evidence, evidence)
        )
    return persona
