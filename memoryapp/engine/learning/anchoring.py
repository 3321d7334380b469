"""A memory that tells when it began ("I moved to Suzhou last month", "两年前开始学的") starts then: the
relative time is read against the day it was said (lib/dates.py) into the memory's `valid_from`, so the
words stay true after that day and "as of" and the replaced-by chain put it where it belongs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memoryapp.lib.dates import began

if TYPE_CHECKING:
    from datetime import datetime

    from memoryapp.models import Memory


def anchored_start(content: str, said_at: datetime | None, replacing: Memory | None = None) -> datetime | None:
    """The memory's `valid_from`, when its words name a relative past time; None (from now) when they do
    not, or when that time is not after the memory it replaces (a version cannot start before its rival)."""
    found = began(content, said_at) if said_at is not None else None
    if found is None:
        return None
    start = found[1]
    return None if replacing is not None and start <= replacing.valid_from else start
