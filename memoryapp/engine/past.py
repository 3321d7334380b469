"""A chat message that asks about the past (DESIGN flow 1, time travel): "what did I prefer in March?",
"我三月份喜欢什么？", "5个月前我用什么框架？", "what did I use to drink?", "我以前喜欢什么？".

A named moment (a month, a year, "N months ago", "last month") becomes the date recall looks at:
what was true then, the versions replaced since included. A vague past ("used to", "以前", "之前我",
"上次") recalls every version, so the old one can be cited as old. A message about plans ("I'm going to
Japan in March", "我三月要去日本") is not about the past.

No model runs here: short bilingual patterns. Named scenarios in tests/unit/engine/test_past.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from .rewrite import relative_dates

MONTHS_EN = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
             "november", "december")
_MONTH_EN = "|".join(MONTHS_EN + tuple(m[:3] for m in MONTHS_EN if len(m) > 3) + ("sept",))
# A month needs a preposition or a year next to it: "may" alone is a verb.
_EN_MONTH = re.compile(rf"\b(?:in|during|around|since|back in|last|early|late|mid|by)\s+({_MONTH_EN})\b\.?(?:\s+(\d{{4}}))?"
                       rf"|\b({_MONTH_EN})\s+(\d{{4}})\b")
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_ZH_MONTH = re.compile(r"(?:(\d{4})年|(去年|今年))?(十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])月(?!份?[之以]后)")
_ZH_AGO = re.compile(r"(\d{1,3}|[一二两三四五六七八九十]{1,3}|半)\s*(?:个)?(天|周|星期|个月|月|年)(?:以)?前")
_YEAR = re.compile(r"\bin\s+(\d{4})\b|(\d{4})年(?!\d{1,2}月)")
_LAST_YEAR = re.compile(r"\blast year\b|去年")
_FUTURE = re.compile(r"\b(?:will|going to|gonna|plan(?:ning)?|next|upcoming|'ll)\b|打算|计划|准备|将要|要去|下个|明年|以后|之后")
_VAGUE_EN = re.compile(r"\b(?:used to|previously|in the past|back then|at first|originally|formerly|"
                       r"before that|earlier on|did i (?:use|used) to|last time)\b")
_VAGUE_ZH = re.compile(r"以前|从前|过去|曾经|当时|那时|上次|上一次|原来|之前(?:我|的|说|喜欢|用|提)|我之前|你之前")


@dataclass(frozen=True)
class PastReference:
    at: datetime | None  # the moment asked about; None: some time before now (every version)

    @property
    def include_history(self) -> bool:
        return self.at is None


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text == "半":
        return None
    if text.startswith("十"):
        return 10 + _ZH_DIGITS.get(text[1:], 0)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _ZH_DIGITS[tens] * 10 + _ZH_DIGITS.get(ones, 0)
    return _ZH_DIGITS.get(text)


def _mid_month(year: int, month: int) -> datetime | None:
    return None if not 1 <= month <= 12 else datetime(year, month, 15, 12)


def _month_moment(now: datetime, month: int, year: int | None) -> datetime | None:
    """The latest such month that has begun (this year's, or last year's when it is still ahead)."""
    if year is None:
        year = now.year if month <= now.month else now.year - 1
        if month == now.month:
            return None  # "in November", said in November: that is now
    moment = _mid_month(year, month)
    if moment is None:
        return None
    moment = moment.replace(tzinfo=now.tzinfo)
    return moment if moment < now else None


def _named_moments(text: str, lowered: str, now: datetime) -> list[datetime]:
    found: list[datetime] = []
    for prefixed, prefixed_year, bare, bare_year in _EN_MONTH.findall(lowered):
        name = prefixed or bare
        month = next(i for i, m in enumerate(MONTHS_EN, start=1) if m.startswith(name[:3]))
        year = prefixed_year or bare_year
        found.append(_month_moment(now, month, int(year) if year else None))
    for year, relative, month in _ZH_MONTH.findall(text):
        number = _zh_number(month.lstrip("0"))
        if relative == "去年":
            year = str(now.year - 1)
        elif relative == "今年":
            year = str(now.year)
        found.append(_month_moment(now, number, int(year) if year else None) if number else None)
    for amount, unit in _ZH_AGO.findall(text):
        count = _zh_number(amount)
        days = {"天": 1, "周": 7, "星期": 7, "个月": 30, "月": 30, "年": 365}[unit]
        found.append(now - timedelta(days=days * count) if count else now - timedelta(days=days // 2))
    if not found:
        found += relative_dates(lowered, now)
        found = [moment for moment in found if moment < now - timedelta(hours=12)]  # "today" is now
    if not found:
        for in_year, zh_year in _YEAR.findall(lowered):
            year = int(in_year or zh_year)
            if year < now.year:
                found.append(datetime(year, 7, 1, tzinfo=now.tzinfo))
        if _LAST_YEAR.search(lowered):
            found.append(datetime(now.year - 1, 7, 1, tzinfo=now.tzinfo))
    return [moment for moment in found if moment is not None]


def past_reference(message: str, now: datetime) -> PastReference | None:
    """The past `message` asks about, seen from `now`, or None when it asks about the present."""
    lowered = message.casefold().replace("’", "'")
    if _FUTURE.search(lowered):
        return None
    moments = _named_moments(message, lowered, now)
    if moments:
        return PastReference(at=min(moments))
    if _VAGUE_EN.search(lowered) or _VAGUE_ZH.search(message):
        return PastReference(at=None)
    return None
