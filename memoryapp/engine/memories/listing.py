"""Listing a user's memories for the page and the API: filters, keyset (cursor) pagination, stats.

With a search query the order is recall's (RECALL_MEMORIES_PAGE, see recipes.py) and there is one page;
without one, newest first, paged by an opaque cursor over (created_at, id).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from conversations.models import Conversation
from memoryapp.models import Memory, MemoryEvent, MemoryKind, MemorySource, MemoryStatus

from ..errors import MemoryValidationError
from ..recall.recall import recall
from ..recall.recipes import SEARCH_METHODS, SearchMethod
from .validation import has_nul

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
SEARCH_PAGE_SIZE = 50  # the memories page shows this many search results, best first
MAX_DB_ID = 2**63 - 1
# The memories page keeps saved memories and chat episodes apart (as chat history is kept apart from
# saved memories): its default list is these kinds, episodes have their own tab. The API lists every kind.
SAVED_KINDS: tuple[str, ...] = tuple(kind for kind in MemoryKind.values if kind != MemoryKind.EPISODE)
RANGES: dict[str, timedelta] = {
    "day": timedelta(days=1),
    "week": timedelta(days=7),
    "month": timedelta(days=30),
    "year": timedelta(days=365),
}


@dataclass(frozen=True)
class MemoryFilter:
    """What to list; empty values mean "any". `status` defaults to the current, active memories.

    `since`/`until` bound when a memory was learnt; `at` is time travel: the active memories that were
    true at that moment, the versions replaced since included (each knows what replaced it). `kinds`
    is any of several types (`kind` one); `method` how a search query is matched (recipes.SearchMethod).
    """

    q: str = ""
    kind: str = ""
    status: str = MemoryStatus.ACTIVE
    source: str = ""
    since: datetime | None = None
    until: datetime | None = None
    kinds: tuple[str, ...] = ()
    at: datetime | None = None
    method: str = SearchMethod.HYBRID

    def __post_init__(self) -> None:
        checks: tuple[tuple[str, str | None, list[str]], ...] = (
            ("kind", self.kind, MemoryKind.values),
            ("status", self.status, MemoryStatus.values),
            ("source", self.source, MemorySource.values),
            ("method", self.method, SearchMethod.values),
        )
        checks += tuple(("kinds", kind, MemoryKind.values) for kind in self.kinds)
        for name, value, allowed in checks:
            if value and value not in allowed:
                raise MemoryValidationError(f"{name} must be one of: {', '.join(allowed)}", name)
        object.__setattr__(self, "kinds", tuple(dict.fromkeys((*self.kinds, self.kind) if self.kind else self.kinds)))
        if has_nul(self.q):
            raise MemoryValidationError("q must not contain NUL characters", "q")
        for name in ("since", "until", "at"):  # Postgres takes offsets up to ±15:59 only: store UTC
            value = getattr(self, name)
            if value is None:
                continue
            try:
                utc = (value if timezone.is_aware(value) else timezone.make_aware(value)).astimezone(UTC)
            except (OverflowError, ValueError):
                raise MemoryValidationError(f"{name} is out of range", name) from None
            object.__setattr__(self, name, utc)
        if self.since and self.until and self.since >= self.until:
            raise MemoryValidationError("since must be before until", "since")
        if self.at and self.at > timezone.now():
            raise MemoryValidationError("at must not be in the future", "at")

    @classmethod
    def with_range(cls, range_name: str = "", **values) -> MemoryFilter:
        """`range_name` (day, week, month, year) sets `since` relative to now."""
        if range_name and range_name not in RANGES:
            raise MemoryValidationError(f"range must be one of: {', '.join(RANGES)}", "range")
        if range_name:
            values["since"] = timezone.now() - RANGES[range_name]
        return cls(**values)


@dataclass
class MemoryPage:
    memories: list[Memory] = field(default_factory=list)
    next_cursor: str | None = None
    scores: dict[int, float] = field(default_factory=dict)  # memory id → recall score, when searched
    # With `count`: how many memories the filters match (every page of them), or a search found.
    total: int | None = None
    capped: bool = False  # a search found its limit: there may be more, less relevant


def encode_cursor(memory: Memory) -> str:
    raw = json.dumps([memory.created_at.isoformat(), memory.pk]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        stamp, pk = json.loads(raw)
        when = parse_datetime(stamp)
        if when is None or not isinstance(pk, int) or isinstance(pk, bool) or not 0 < pk <= MAX_DB_ID:
            raise ValueError
        return when, pk
    except (ValueError, TypeError, json.JSONDecodeError, UnicodeDecodeError):
        raise MemoryValidationError("cursor is not one this API gave out", "cursor") from None


def filtered(user, flt: MemoryFilter) -> QuerySet[Memory]:
    memories = (
        Memory.objects.filter(user=user)
        .select_related("source_conversation")
        .prefetch_related("superseded_by", "supersedes")
    )
    if flt.status:
        memories = memories.filter(status=flt.status)
        if flt.status == MemoryStatus.ACTIVE and flt.at:
            memories = memories.filter(Q(valid_until__isnull=True) | Q(valid_until__gt=flt.at), valid_from__lte=flt.at)
        elif flt.status == MemoryStatus.ACTIVE:
            memories = memories.filter(valid_until__isnull=True)  # replaced ones live in history
    if flt.kinds:
        memories = memories.filter(kind__in=flt.kinds)
    if flt.source:
        memories = memories.filter(source=flt.source)
    if flt.since:
        memories = memories.filter(created_at__gte=flt.since)
    if flt.until:
        memories = memories.filter(created_at__lt=flt.until)
    return memories


def list_memories(
    user, flt: MemoryFilter, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE, count: bool = False
) -> MemoryPage:
    """One page of the filtered memories, newest first, or a search's results (one page, best first).
    `count`: also say how many there are in all (the page shows "N memories")."""
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    if flt.q.strip():
        page = _search(user, flt, limit)
        if count:
            page.total, page.capped = len(page.memories), len(page.memories) >= limit
        return page
    memories = filtered(user, flt).order_by("-created_at", "-id")
    if cursor:
        when, pk = decode_cursor(cursor)
        memories = memories.filter(Q(created_at__lt=when) | Q(created_at=when, id__lt=pk))
    rows = list(memories[: limit + 1])
    page = MemoryPage(memories=rows[:limit])
    if len(rows) > limit:
        page.next_cursor = encode_cursor(rows[limit - 1])
    if count:
        page.total = len(page.memories) if page.next_cursor is None and not cursor else filtered(user, flt).count()
    return page


def _search(user, flt: MemoryFilter, limit: int) -> MemoryPage:
    """Recall with the method's recipe over the memories of the asked status: current ones (or those true
    `at`), or every forgotten or deleted version. Time, type and validity filters apply inside recall, so
    its top `limit` are all eligible."""
    current = flt.status == MemoryStatus.ACTIVE
    results = recall(
        user,
        flt.q.strip(),
        config=SEARCH_METHODS[flt.method],
        k=limit,
        at=flt.at if current else None,
        include_history=not current,
        status=flt.status,
        kinds=flt.kinds or None,
        created_since=flt.since,
        created_until=flt.until,
        record_access=False,
    )
    allowed = filtered(user, flt).in_bulk([m.pk for m in results.memories])  # the source filter
    items = [item for item in results.items if item.memory.pk in allowed]
    return MemoryPage(
        memories=[allowed[item.memory.pk] for item in items], scores={item.memory.pk: item.score for item in items}
    )


def get_memory(user, memory_id: int) -> Memory | None:
    """The caller's memory, or None (also for ids that cannot exist), so others' ids look missing."""
    if not 0 < memory_id <= MAX_DB_ID:
        return None
    return Memory.objects.select_related("source_conversation").filter(user=user, pk=memory_id).first()


def history(user, memory: Memory, *, depth: int = 20) -> QuerySet[MemoryEvent]:
    """The memory's events and those of the versions it replaced (an edit is a supersede), newest first."""
    ids, frontier = {memory.pk}, [memory.pk]
    for _ in range(depth):
        frontier = [
            pk
            for pk in Memory.supersedes.through.objects.filter(from_memory_id__in=frontier).values_list(
                "to_memory_id", flat=True
            )
            if pk not in ids
        ]
        if not frontier:
            break
        ids.update(frontier)
    return MemoryEvent.objects.filter(user=user, memory_ref__in=ids).order_by("-created_at", "-id")


def history_with_chats(user, memory: Memory) -> list[MemoryEvent]:
    """`history`, each event with `chats`: the user's conversations it names (a use in a chat names the
    chats the memory was handed to; one since deleted is left out)."""
    events = list(history(user, memory))
    named = {pk for event in events for pk in (event.after or {}).get("conversations", [])}
    chats = Conversation.objects.filter(user=user, pk__in=named).in_bulk() if named else {}
    for event in events:
        # The page's own field on each event: the chats it was used in.
        event.chats = [chats[pk] for pk in (event.after or {}).get("conversations", []) if pk in chats]  # type: ignore[attr-defined]
    return events


def stats(user) -> dict:
    """Totals for the page header: current memories by type (`saved`: all but episodes, `episodes`: the
    chat episodes, each listed in its own tab), all memories by status."""
    rows = Memory.objects.filter(user=user).exclude(status=MemoryStatus.ACTIVE, valid_until__isnull=False)
    by_status = {s: 0 for s in MemoryStatus.values}
    by_status.update(dict(rows.values_list("status").annotate(n=Count("id")).order_by()))
    current = rows.filter(status=MemoryStatus.ACTIVE)
    by_kind = {k: 0 for k in MemoryKind.values}
    by_kind.update(dict(current.values_list("kind").annotate(n=Count("id")).order_by()))
    episodes = by_kind[MemoryKind.EPISODE]
    return {
        "total": sum(by_kind.values()),
        "saved": sum(by_kind.values()) - episodes,
        "episodes": episodes,
        "by_kind": by_kind,
        "by_status": by_status,
    }
