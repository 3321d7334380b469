"""API schemas: explicit fields only (never the embedding or the search columns)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from ninja import ModelSchema, Schema
from pydantic import ConfigDict, Field

from memoryapp.engine.learning.turns import ConversationInput
from memoryapp.engine.memories.validation import DateTimeIn, MemoryFields, MemoryPatch, Text
from memoryapp.engine.recall.recipes import SearchMethod
from memoryapp.models import MAX_CONTENT_LENGTH, Memory, MemoryKind, MemorySource, MemoryStatus

# The API's vocabularies are the models' choices: one list each, so the two cannot drift.
Kind = MemoryKind
StatusName = MemoryStatus
Source = MemorySource


class ReplacementOut(Schema):
    """The version that replaced a memory: what it says and since when."""

    id: int
    content: str
    valid_from: datetime


class MemoryOut(ModelSchema):
    """A memory as the API shows it: the fields listed in Meta, no vector and no search column."""

    source_conversation_id: int | None
    # Situations in which the memory helps, searched beside its content: written by a model or a person,
    # or, when nobody wrote any, inferred from the built-in situation bank (cues_inferred true).
    cues: list[str]
    cues_inferred: bool
    replaced_by: ReplacementOut | None = None  # set on a version that is no longer current

    class Meta:
        model = Memory
        fields = [
            "id", "content", "kind", "lifecycle", "importance", "confidence", "status", "access_count",
            "last_accessed_at", "valid_from", "valid_until", "source", "created_at", "updated_at",
        ]  # fmt: skip

    @staticmethod
    def resolve_replaced_by(memory: Memory) -> Memory | None:
        return memory.replaced_by


class MemoryIn(MemoryFields, Schema):
    """A new memory: the engine's fields and rules (memoryapp/engine/memories/validation.py), not a copy."""


class MemoryPatchIn(MemoryPatch, Schema):
    """Any subset; a new content supersedes the memory (the old wording stays in its history)."""


class ConflictOut(Schema):
    """Two current memories that may disagree: does `newer` replace `older`? (status open, replaced, kept)"""

    id: int
    status: str
    slot: str  # what both are about, as the app reads it (home, work, manager...); "" when unknown
    asked_by: str  # extractor (unsure of a change), system (the nightly reviewer)
    created_at: datetime
    older: MemoryOut
    newer: MemoryOut


class ResolveIn(Schema):
    answer: Literal["replace", "keep"]  # replace: the newer replaces the older (kept in history); keep: both stay


class WriteOut(Schema):
    action: str  # created, merged, superseded, updated, deleted, restored, unchanged
    memory: MemoryOut


class MemoryPageOut(Schema):
    items: list[MemoryOut]
    next_cursor: str | None


class SearchIn(Schema):
    model_config = ConfigDict(extra="forbid")

    query: Text = Field(min_length=1, max_length=MAX_CONTENT_LENGTH)
    kind: Kind | None = None
    kinds: list[Kind] = Field(default_factory=list, max_length=10)
    status: StatusName = MemoryStatus.ACTIVE
    since: DateTimeIn | None = None  # learnt at or after
    until: DateTimeIn | None = None  # learnt before
    at: DateTimeIn | None = None  # time travel: what was true then, versions replaced since included
    method: SearchMethod = SearchMethod.HYBRID
    limit: int = Field(default=20, ge=1, le=50, strict=True)


class SearchHitOut(Schema):
    score: float
    memory: MemoryOut


class SearchOut(Schema):
    items: list[SearchHitOut]


class EventOut(Schema):
    id: int
    action: str
    actor: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    note: str
    client: str = ""  # the program it came through: "app:<id>" (an OAuth app), "token:<id>", "" (the app itself)
    created_at: datetime


class StatsOut(Schema):
    total: int
    by_kind: dict[str, int]
    by_status: dict[str, int]


class ExportRowOut(Schema):
    id: int
    content: str
    kind: str
    lifecycle: str
    importance: float
    confidence: float
    status: str
    access_count: int
    source: str
    valid_from: str
    created_at: str
    context: str


class ExportOut(Schema):
    format: str
    version: int
    exported_at: str
    memories: list[ExportRowOut]


class ImportIn(Schema):
    """An export file's object; rows are checked one by one so each bad row can be reported."""

    memories: list[Any] = Field(max_length=5000)


class RowErrorOut(Schema):
    row: int
    reason: str
    field: str | None


class ImportJobOut(Schema):
    """An import job: queued, running (`done` of `total` rows written so far, not yet visible: the import
    commits all at once), done (`imported` new memories, `duplicates` skipped), or failed (`error`; nothing
    was written)."""

    id: int
    status: Literal["queued", "running", "done", "failed"]
    done: int
    total: int
    imported: int
    duplicates: int
    error: str
    created_at: datetime
    finished_at: datetime | None


class ExtractIn(ConversationInput, Schema):
    """A conversation to learn from: its turns in order, each with when it was said (engine/learning/turns.py)."""


class LearnJobOut(Schema):
    """A learning job: queued, running (`done` of `total` messages learnt from so far, each window of 10
    visible as soon as it is learnt), done, skipped (memory is off: `error` says so) or failed (`error`;
    what was learnt before the failure stays). `memory_ids`: the memories it wrote, oldest first."""

    id: int
    status: Literal["queued", "running", "done", "skipped", "failed"]
    done: int
    total: int
    created: int  # new memories, episodes included
    superseded: int  # memories that replaced an older one, or were placed before a newer one as its past
    asked: int  # changes it was unsure of: questions on the memories page (GET /api/memories/conflicts)
    suggested: int  # auto-extract off: memories waiting for the user's confirmation
    memory_ids: list[int]
    source: str
    error: str
    created_at: datetime
    finished_at: datetime | None


class HistoryImportOut(Schema):
    """An import of a ChatGPT or Claude export: preview (read, waiting for its start), queued, running
    (`done` of `total` conversations learnt, each visible once learnt, oldest first), done, failed (`error`;
    what was learnt stays, and `POST .../resume` goes on) or undone. `conversations`: in the export;
    `skipped`: what the reader left out, each named; `memory_ids`: the memories it wrote."""

    id: int
    status: Literal["preview", "queued", "running", "done", "failed", "undone"]
    format: Literal["chatgpt", "claude"]
    name: str
    conversations: int
    done: int
    total: int
    created: int
    superseded: int
    suggested: int
    keep_chats: bool
    skipped: list[str]
    memory_ids: list[int]
    error: str
    created_at: datetime
    finished_at: datetime | None

    @staticmethod
    def resolve_conversations(job) -> int:
        return len(job.rows)


class HistoryStartIn(Schema):
    """Which conversations to learn from: their ids (default: all but archived and temporary ones), held
    between `since` and `until` (days, both included), and whether to keep them as chats too."""

    conversations: list[str] | None = None
    since: date | None = None
    until: date | None = None
    keep_chats: bool = False


class ErrorOut(Schema):
    """The one error body of every /api/ answer that is not a success."""

    detail: str  # one readable sentence
    field: str | None = None  # the input it is about, when it is about one


def errors(*statuses: int) -> dict[int, type[ErrorOut]]:
    """A route's error answers for its `response=`, each with the one error body. Every route can
    answer 400 (the request cannot be read) and 401 (no or bad credentials); a route adds what else it
    can answer: 403 (a session write without its CSRF token), 404, 409, 413 (body too large), 422
    (invalid input), 429 (write limit)."""
    return {status: ErrorOut for status in sorted({400, 401, *statuses})}
