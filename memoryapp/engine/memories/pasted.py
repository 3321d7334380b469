"""Saved memories pasted as text (issue #44 item 3): what ChatGPT or Claude list when asked for what they
remember ("- Prefers concise answers", "2024-03-12: Moved to Berlin", "• 我对花生过敏（2023年5月）"),
one per line, in either language, with or without dates.

`read_lines` turns the paste into lines to show before anything is written: the words without their bullet
or number, the day a line names (its `valid_from`), the kind the learned extractor guesses, and why a line
cannot be kept (a secret, too long): the validation of every memory. `save_lines` writes the good ones
through the write path, one by one (`write.add_memory`: a duplicate merges, a changed value replaces the
older memory), oldest first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from django.utils.translation import gettext as _

from memoryapp.models import Actor, MemoryKind, MemorySource

from ..errors import MemoryValidationError
from .validation import MemoryInput, parse

MAX_LINES = 500  # a saved-memory list is tens of lines; more is not that
_BULLET = re.compile(r"^\s*(?:[-*•·●▪–—]+|\d{1,3}[.)、．]|[（(]\d{1,3}[)）])\s*")
# A heading the assistant writes above the list ("Here is what I remember about you:", "以下是我记得的："),
# or a line of the user's own asking: not a memory.
_HEADING = re.compile(r"[:：]\s*$")
_YMD = r"(?P<y>(?:19|20)\d\d)\s*[-/.年]\s*(?P<m>\d{1,2})(?:\s*[-/.月]\s*(?P<d>\d{1,2})\s*日?|\s*月)?"
_DATE_FIRST = re.compile(rf"^\s*[\[(（【]?\s*{_YMD}\s*[\])）】]?\s*[:：,，\-–—]?\s*")
_DATE_LAST = re.compile(rf"\s*[\[(（【]\s*{_YMD}\s*[\])）】]\s*[.。]?\s*$")


@dataclass
class PastedLine:
    content: str
    day: date | None = None
    kind: str = MemoryKind.FACT
    problem: str = ""  # why it cannot be kept; "" when it can

    @property
    def ok(self) -> bool:
        return not self.problem


@dataclass
class PasteReport:
    created: int = 0
    merged: int = 0
    superseded: int = 0
    ids: list[int] = field(default_factory=list)


def _day(found: re.Match) -> date | None:
    try:
        return date(int(found["y"]), int(found["m"]), int(found["d"] or 1))
    except ValueError:
        return None


def _line(raw: str) -> PastedLine | None:
    text = _BULLET.sub("", raw).strip()
    if not text or _HEADING.search(text):
        return None
    day = None
    for pattern in (_DATE_FIRST, _DATE_LAST):
        found = pattern.search(text)
        if found and found.end() - found.start() < len(text):
            day = _day(found)
            text = (text[: found.start()] + text[found.end() :]).strip()
            break
    text = text.strip(" \"'“”‘’「」")
    return PastedLine(text, day) if text else None


def read_lines(text: str) -> list[PastedLine]:
    """The paste as lines to preview, repeats dropped; raises MemoryValidationError when it holds none or
    too many."""
    lines: list[PastedLine] = []
    seen: set[str] = set()
    for raw in text.splitlines():
        line = _line(raw)
        if line is None or line.content in seen:
            continue
        seen.add(line.content)
        lines.append(line)
    if not lines:
        raise MemoryValidationError(_("There are no memories in the pasted text: paste one per line."), "text")
    if len(lines) > MAX_LINES:
        raise MemoryValidationError(_("At most %(count)d memories at a time.") % {"count": MAX_LINES}, "text")
    for line in lines:
        try:
            parse(MemoryInput, {"content": line.content})
        except MemoryValidationError as exc:
            line.problem = exc.message
    _guess_kinds([line for line in lines if line.ok])
    return lines


def _guess_kinds(lines: list[PastedLine]) -> None:
    from ..learned.extraction import guess_kinds

    for line, kind in zip(lines, guess_kinds([line.content for line in lines]), strict=True):
        line.kind = kind


def save_lines(user, lines: list[PastedLine], *, actor: str = Actor.USER) -> PasteReport:
    """Write the lines that can be kept, oldest dated first (a later value replaces an earlier one), the
    undated last, as said now."""
    from . import write

    report = PasteReport()
    dated = sorted((line for line in lines if line.ok), key=lambda line: (line.day is None, line.day or date.min))
    for line in dated:
        when = datetime(line.day.year, line.day.month, line.day.day, tzinfo=UTC) if line.day else None
        result = write.add_memory(
            user, line.content, kind=line.kind, valid_from=when, source=MemorySource.IMPORTED, actor=actor
        )
        report.ids.append(result.memory.pk)
        if result.action == "merged":
            report.merged += 1
        elif result.action == "superseded":
            report.superseded += 1
        else:
            report.created += 1
    return report
