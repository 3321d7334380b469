"""Export (JSON, Markdown) and import (JSON) of a user's memories.

Import validates every row before writing any (`validate_rows`): if one row is bad, each bad row is reported
with its reason and nothing is written. A good file is written by a job (engine/memories/imports.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from pydantic import ValidationError

from memoryapp.models import Actor, EventAction, Memory, MemoryEvent, MemoryKind, MemoryStatus

from ..errors import MemoryValidationError
from .validation import MemoryInput, format_first_error

FORMAT = "memoryapp.memories"
VERSION = 1
MAX_IMPORT_ROWS = 5000
IMPORTED_FIELDS = frozenset(MemoryInput.model_fields)  # a row holds what the write path takes, no more
# Written by export and meaningful only in the account they came from: ignored on import.
EXPORT_ONLY_FIELDS = {
    "id",
    "status",
    "access_count",
    "valid_until",
    "source",
    "source_conversation_id",
    "created_at",
    "updated_at",
    "cues_inferred",  # true: the row's cues were guessed, and are guessed again here (not kept as written)
}


@dataclass(frozen=True)
class RowError:
    row: int  # 1-based, as a person counts rows in the file
    reason: str
    field: str | None = None


@dataclass
class ImportReport:
    imported: int = 0
    duplicates: int = 0
    errors: list[RowError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def exportable(user) -> list[Memory]:
    """Current memories plus forgotten ones (so a restore stays possible elsewhere); not deleted ones."""
    return list(
        Memory.objects.filter(user=user, valid_until__isnull=True)
        .exclude(status=MemoryStatus.DELETED)
        .order_by("created_at", "id")
    )


def export_row(memory: Memory) -> dict:
    return {
        "id": memory.pk,
        "content": memory.content,
        "kind": memory.kind,
        "lifecycle": memory.lifecycle,
        "importance": round(memory.importance, 4),
        "confidence": round(memory.confidence, 4),
        "status": memory.status,
        "access_count": memory.access_count,
        "source": memory.source,
        "valid_from": memory.valid_from.isoformat(),
        "created_at": memory.created_at.isoformat(),
        "context": memory.context,  # what it was learnt from: searched, not shown, but the user's data
        "cues": list(memory.cues),  # imported with the memory: no model call to write them again
        # Guessed from the situation bank, not written: an import guesses them again from its own bank.
        "cues_inferred": memory.cues_inferred,
    }


@dataclass(frozen=True)
class ExportFile:
    body: str
    content_type: str
    filename: str


def export_file(user, fmt: str = "json", *, actor: str = Actor.USER) -> ExportFile:
    """The user's export as a file (JSON to re-import, or Markdown to read), the one both the API and
    the memories page send; each exported memory's history records the export."""
    fmt = "markdown" if fmt == "markdown" else "json"
    memories = exportable(user)
    if fmt == "markdown":
        file = ExportFile(_markdown(memories), "text/markdown; charset=utf-8", "memories.md")
    else:
        data = {
            "format": FORMAT,
            "version": VERSION,
            "exported_at": timezone.now().isoformat(),
            "memories": [export_row(m) for m in memories],
        }
        file = ExportFile(
            json.dumps(data, ensure_ascii=False, indent=2), "application/json; charset=utf-8", "memories.json"
        )
    MemoryEvent.objects.bulk_create(
        [
            MemoryEvent(user=user, memory=m, memory_ref=m.pk, action=EventAction.EXPORTED, actor=actor, note=fmt)
            for m in memories
        ]
    )
    return file


def _markdown(memories: list[Memory]) -> str:
    """A readable list grouped by type, in the language of the request that asked; for people, not for
    re-import."""
    exported = ngettext(
        "Exported %(when)s UTC, %(n)d memory.", "Exported %(when)s UTC, %(n)d memories.", len(memories)
    ) % {"when": f"{timezone.now():%Y-%m-%d %H:%M}", "n": len(memories)}
    lines = [f"# {_('Memories')}", "", exported, ""]
    for kind in MemoryKind:
        mine = [m for m in memories if m.kind == kind.value]
        if not mine:
            continue
        lines += [f"## {kind.label}", ""]
        for memory in mine:
            flag = f" *({_('forgotten')})*" if memory.status == MemoryStatus.FORGOTTEN else ""
            text = " ".join(memory.content.split())  # one line per memory
            facts = _("importance %(importance)s, since %(day)s") % {
                "importance": f"{memory.importance:.0%}",
                "day": f"{memory.valid_from:%Y-%m-%d}",
            }
            lines.append(f"- {text} — {facts}{flag}")
        lines.append("")
    return "\n".join(lines)


def _rows(data: object) -> list:
    """Accept an export file's object or a bare list of rows."""
    if isinstance(data, dict) and isinstance(data.get("memories"), list):
        return data["memories"]
    if isinstance(data, list):
        return data
    raise MemoryValidationError(
        'the file must be a JSON list of memories or an export with a "memories" list', "memories"
    )


def validate_rows(data: object) -> tuple[list[MemoryInput], list[RowError]]:
    rows = _rows(data)
    if not rows:
        raise MemoryValidationError("the file has no memories in it", "memories")
    if len(rows) > MAX_IMPORT_ROWS:
        raise MemoryValidationError(f"at most {MAX_IMPORT_ROWS} memories per import", "memories")
    items: list[MemoryInput] = []
    errors: list[RowError] = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            errors.append(RowError(number, "a row must be an object with a content field"))
            continue
        unknown = sorted(set(row) - IMPORTED_FIELDS - EXPORT_ONLY_FIELDS)
        if unknown:
            errors.append(RowError(number, f"unknown field {unknown[0]!r}", str(unknown[0])))
            continue
        if row.get("cues_inferred") is True:
            row = {**row, "cues": []}
        try:
            item = MemoryInput.model_validate({k: v for k, v in row.items() if k in IMPORTED_FIELDS})
        except ValidationError as exc:
            message, name = format_first_error(exc)
            errors.append(RowError(number, message, name))
            continue
        if item.valid_from is not None:  # Postgres takes offsets up to ±15:59 only: store UTC
            try:
                aware = item.valid_from if timezone.is_aware(item.valid_from) else timezone.make_aware(item.valid_from)
                item.valid_from = aware.astimezone(UTC)
            except (OverflowError, ValueError):
                errors.append(RowError(number, "valid_from is out of range", "valid_from"))
                continue
        items.append(item)
    return items, errors
