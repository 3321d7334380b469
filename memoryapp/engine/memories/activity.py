"""What programs did with the user's memories: the audit trail's rows that name a client (an OAuth app or a
personal token, memoryapp/lib/clients.py), newest first, for Settings › Activity and each app's log."""

from __future__ import annotations

from typing import Literal

from django.db.models import QuerySet

from memoryapp.models import EventAction, MemoryEvent

Kind = Literal["", "reads", "changes"]
READ_ACTIONS = (EventAction.ACCESSED, EventAction.EXPORTED)  # what leaves the memory as it was


def program_events(user, *, client: str = "", kind: Kind = "") -> QuerySet[MemoryEvent]:
    """The user's events made through a program (`client`: that one only), `reads` or `changes` only."""
    rows = MemoryEvent.objects.filter(user=user).exclude(client="").select_related("memory")
    if client:
        rows = rows.filter(client=client)
    if kind == "reads":
        rows = rows.filter(action__in=READ_ACTIONS)
    elif kind == "changes":
        rows = rows.exclude(action__in=READ_ACTIONS)
    return rows.order_by("-created_at", "-id")


def programs_seen(user) -> list[str]:
    """Every program that has a record in the user's trail (the log's filter offers each)."""
    return sorted(MemoryEvent.objects.filter(user=user).exclude(client="").values_list("client", flat=True).distinct())
