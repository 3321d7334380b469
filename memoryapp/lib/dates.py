"""When a relative time in a sentence was, seen from the day it was said: "last month", "two years ago",
"上个月", "两年前" become a date, so a memory of it stays true after the day (dateparser finds and reads them,
in both languages; Chinese numerals are written as digits first, which it reads more reliably).
"""

from __future__ import annotations

import re
from datetime import datetime

from .numerals import zh_number
from .scripts import HAN

# A relative expression, not a bare month or weekday ("I may", "on Friday" say nothing of when it began).
_RELATIVE = re.compile(
    r"\b(?:ago|last|yesterday|earlier this|this past)\b|前|上个?|去年|前年|昨天|前天|上周|上礼拜", re.I
)
_ZH_COUNT = re.compile(r"([一二两三四五六七八九十]{1,3})(?=(?:个)?(?:年|月|星期|周|礼拜|天)(?:多)?前)")


def began(text: str, said_at: datetime) -> tuple[str, datetime] | None:
    """The relative past time `text` names and the moment it means, seen from `said_at`; None when it
    names none (a future time, "next month", is a plan: it starts nothing yet)."""
    if not _RELATIVE.search(text):
        return None
    from dateparser.search import search_dates  # ~1 s to import: only when a sentence names a relative time

    chinese = bool(HAN.search(text))
    probe = _ZH_COUNT.sub(lambda m: str(zh_number(m.group(1))), text) if chinese else text
    settings = {
        "RELATIVE_BASE": said_at.replace(tzinfo=None),
        "PREFER_DATES_FROM": "past",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    found = search_dates(probe, languages=["zh" if chinese else "en"], settings=settings) or []
    for words, moment in found:
        if _RELATIVE.search(words) and moment < said_at.replace(tzinfo=None):
            return words, moment.replace(tzinfo=said_at.tzinfo)
    return None
