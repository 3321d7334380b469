"""LoCoMo-shaped data: turns and QA items, with evidence ids cleaned as FORMAT.md suggests.

Pure (no Django), so it tests with tiny fixtures. Works on any file of the same shape: a JSON list of
samples with `conversation` (session_N lists, session_N_date_time strings) and `qa`.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

logger = logging.getLogger(__name__)

_EVIDENCE = re.compile(r"D:?\s*(\d+)\s*:\s*(\d+)")
_SESSION = re.compile(r"session_(\d+)")
DATE_FORMAT = "%I:%M %p on %d %B, %Y"
RECALL_CATEGORIES = (1, 2, 3, 4)  # 5 is adversarial: its evidence points at the distorted premise
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    content: str  # what becomes the memory: "Speaker: text [shares an image: caption]"
    when: datetime | None


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]  # cleaned, existing dia_ids


@dataclass
class Sample:
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    dropped_evidence: list[str] = field(default_factory=list)


def turn_content(turn: dict) -> str:
    """The caption is the only trace of a shared image, so it is part of the memory."""
    text = f"{turn['speaker']}: {turn.get('text', '')}".strip()
    caption = turn.get("blip_caption")
    if caption:
        text += f" [shares an image: {caption}]"
    return text


def parse_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.strptime(value.strip(), DATE_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        logger.warning("unparsed session date %r", value)
        return None


def clean_evidence(raw: list, known: set[str] | None = None) -> tuple[list[str], list[str]]:
    """(ids, dropped): every D<s>:<t> match rebuilt without padding, deduplicated in order; ids that
    are not in `known` (when given) and fragments with no match are returned as dropped."""
    ids: dict[str, None] = {}
    dropped: list[str] = []
    for item in raw or []:
        matches = _EVIDENCE.findall(str(item))
        if not matches:
            dropped.append(str(item))
        for session, turn in matches:
            dia_id = f"D{int(session)}:{int(turn)}"
            if known is not None and dia_id not in known:
                dropped.append(dia_id)
            else:
                ids.setdefault(dia_id, None)
    return list(ids), dropped


def sessions(conversation: dict) -> list[tuple[int, list[dict], datetime | None]]:
    """(number, turns, date) for every session_N key that holds a list (conv-26 has dangling dates)."""
    found = []
    for key, value in conversation.items():
        match = _SESSION.fullmatch(key)
        if match and isinstance(value, list):
            number = int(match.group(1))
            found.append((number, value, parse_date(conversation.get(f"{key}_date_time"))))
    return sorted(found, key=lambda item: item[0])


def parse_sample(raw: dict) -> Sample:
    sample = Sample(sample_id=str(raw.get("sample_id", "?")))
    for _, turns, when in sessions(raw.get("conversation", {})):
        for turn in turns:
            sample.turns.append(Turn(turn["dia_id"], turn["speaker"], turn_content(turn), when))
    known = {turn.dia_id for turn in sample.turns}
    for qa in raw.get("qa", []):
        ids, dropped = clean_evidence(qa.get("evidence", []), known)
        sample.dropped_evidence.extend(dropped)
        sample.questions.append(Question(str(qa.get("question", "")), int(qa.get("category", 0)), tuple(ids)))
    if sample.dropped_evidence:
        logger.info("%s: dropped evidence %s", sample.sample_id, sample.dropped_evidence)
    return sample


def load(path: str | Path, limit_samples: int | None = None) -> list[Sample]:
    raw = json.loads(Path(path).read_text())
    if limit_samples:
        raw = raw[:limit_samples]
    return [parse_sample(item) for item in raw]


def recall_questions(sample: Sample) -> list[Question]:
    """The questions that count for retrieval: categories 1-4 with at least one resolvable gold turn."""
    return [q for q in sample.questions if q.category in RECALL_CATEGORIES and q.evidence]
