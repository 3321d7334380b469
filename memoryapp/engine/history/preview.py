"""What an export holds, from one streaming pass, before anything is learnt from it.

`preview_export(source)` reads the export once (exports.py) and keeps a row per conversation (id, title, date,
turns, flags) for a list the user may untick, and the totals: conversations, the date range, user turns and
the memories expected. Archived and temporary conversations are left unticked (`PreviewRow.selected`);
`totals(rows)` gives the same figures for whatever the user leaves ticked.

The memories expected are a rough rate, `MEMORIES_PER_USER_TURN`, measured: bench.ingest_history's history of
1,000 conversations (9,964 user turns, mostly requests and questions to an assistant) leaves 203 current
memories with no model, 0.02 a user turn. A model finds more in the same turns; the preview says "about".
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import IO

from .exports import DEFAULT_LIMITS, ExportLimits, open_export
from .formats import ExportFormat, HistoryConversation, Skip

MEMORIES_PER_USER_TURN = 0.02


@dataclass(frozen=True)
class PreviewRow:
    id: str
    title: str
    created_at: datetime | None
    user_turns: int
    messages: int
    archived: bool = False
    temporary: bool = False
    chars: int = 0  # of its messages' text: how much of it a job holds in memory

    @property
    def selected(self) -> bool:
        """Ticked at first: archived and temporary chats are skipped unless the user ticks them."""
        return not (self.archived or self.temporary)

    @classmethod
    def of(cls, conversation: HistoryConversation) -> PreviewRow:
        c = conversation
        chars = sum(len(m.text) for m in c.messages)
        return cls(c.id, c.title, c.created_at, c.user_turns, len(c.messages), c.archived, c.temporary, chars)


@dataclass(frozen=True)
class PreviewTotals:
    conversations: int
    first: datetime | None
    last: datetime | None
    user_turns: int
    expected_memories: int


@dataclass(frozen=True)
class ExportPreview:
    name: str
    format: ExportFormat
    rows: tuple[PreviewRow, ...]  # in the file's order
    skipped: tuple[Skip, ...]  # conversations and messages the import will leave out, named
    all: PreviewTotals
    selected: PreviewTotals  # of the rows ticked at first


def expected_memories(user_turns: int) -> int:
    return round(user_turns * MEMORIES_PER_USER_TURN)


def totals(rows: Iterable[PreviewRow]) -> PreviewTotals:
    count = turns = 0
    first: datetime | None = None
    last: datetime | None = None
    for row in rows:
        count += 1
        turns += row.user_turns
        if row.created_at is not None:
            first = row.created_at if first is None else min(first, row.created_at)
            last = row.created_at if last is None else max(last, row.created_at)
    return PreviewTotals(count, first, last, turns, expected_memories(turns))


def preview_export(
    source: str | os.PathLike[str] | IO[bytes], *, limits: ExportLimits = DEFAULT_LIMITS, name: str | None = None
) -> ExportPreview:
    """The preview of the export in `source`. Raises exports.ExportError (one sentence) for a file that
    cannot be read, as open_export does."""
    with open_export(source, limits=limits, name=name) as export:
        rows = tuple(PreviewRow.of(conversation) for conversation in export)
    return ExportPreview(
        name=export.name,
        format=export.format,
        rows=rows,
        skipped=tuple(export.report.skipped),
        all=totals(rows),
        selected=totals(row for row in rows if row.selected),
    )
