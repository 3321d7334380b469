"""Query rewriting without a model: the words the full-text retriever searches for.

- Chat meta words are dropped: "do you remember what I told you about my sister's job" is about
  the sister's job; "remember", "told" are about the conversation, and a memory that happens to
  contain them ranks no better for it. Hedges ("likely", "kind of") go the same way.
- Relative dates become the date words memories are indexed with (`text.date_words`, e.g.
  "may 2023"), counted back from the time the question is asked: "what did I do last month?"
  then matches the memories dated last month. English and Chinese forms.

Pure functions; `recall()` applies them when `RecallConfig.query` asks for it.
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from .text import date_words, query_terms

META_WORDS = frozenset(
    "remember remembered recall recalled mention mentioned mentions tell told say said talked "
    "discussed ask asked likely probably kind sort type ever 记得 提到 提过 说过 告诉".split()
)

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_AGO = re.compile(r"\b(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
                  r"(day|week|month|year)s?\s+ago\b")
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


def _months_back(at: datetime, months: int) -> datetime:
    month_index = at.year * 12 + at.month - 1 - months
    return at.replace(year=month_index // 12, month=month_index % 12 + 1, day=1)


def relative_dates(text: str, at: datetime) -> list[datetime]:
    """The moments a question's relative dates point at, seen from `at`."""
    lowered = text.casefold()
    found: list[datetime] = []
    if re.search(r"\btoday\b|\bthis (week|month)\b|今天|本周|这周|这个月|本月", lowered):
        found.append(at)
    if re.search(r"\byesterday\b|昨天", lowered):
        found.append(at - timedelta(days=1))
    if re.search(r"\blast week\b|上周|上个星期|上星期", lowered):
        found.append(at - timedelta(days=7))
    if re.search(r"\blast month\b|上个月|上月", lowered):
        found.append(_months_back(at, 1))
    for amount, unit in _AGO.findall(lowered):
        count = int(amount) if amount.isdigit() else _NUMBERS[amount]
        if unit == "month":
            found.append(_months_back(at, count))
        elif unit == "year":
            found.append(at.replace(year=max(1, at.year - count), day=1))
        else:
            found.append(at - timedelta(days=count * _UNIT_DAYS[unit]))
    return found


def year_words(text: str, at: datetime) -> list[str]:
    lowered = text.casefold()
    years = []
    if re.search(r"\blast year\b|去年", lowered):
        years.append(str(at.year - 1))
    if re.search(r"\bthis year\b|今年", lowered):
        years.append(str(at.year))
    return years


def rewrite_terms(text: str, at: datetime | None, *, drop_meta: bool = True, dates: bool = True) -> list[str]:
    """The full-text terms for `text`: its content words less meta words, plus date words."""
    terms = [t for t in query_terms(text) if not (drop_meta and t in META_WORDS)]
    if dates and at is not None:
        extra = [w for moment in relative_dates(text, at) for w in date_words(moment).split()]
        extra += year_words(text, at)
        terms += [w for w in dict.fromkeys(extra) if w not in terms]
    return terms
