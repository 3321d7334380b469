"""A chat message that asks about the past (DESIGN flow 1, time travel): "what did I prefer in March?",
"我三月份喜欢什么？", "5个月前我用什么框架？", "what did I use to drink?", "我以前喜欢什么？".

A named moment (a month, a year, "N months ago", "last month") becomes the date recall looks at:
what was true then, the versions replaced since included. A vague past ("used to", "以前", "之前我",
"上次") recalls every version, so the old one can be cited as old. A message about plans ("I'm going to
Japan in March", "我三月要去日本") is not about the past. A question about the time before something
("What did I prefer before React?", "在上海之前我住哪儿？") names it (`named_before`); engine/recall/chain.py
answers it from the supersedes chain.

No model runs here: short bilingual patterns. Named scenarios in tests/unit/engine/test_past.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from memoryapp.lib.numerals import number as read_number

from ..text import query_terms

MONTHS_EN = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_EN = "|".join(MONTHS_EN + tuple(m[:3] for m in MONTHS_EN if len(m) > 3) + ("sept",))
# A month needs a preposition or a year next to it: "may" alone is a verb.
_EN_MONTH = re.compile(
    rf"\b(?:in|during|around|since|back in|last|early|late|mid|by)\s+({_MONTH_EN})\b\.?(?:\s+(\d{{4}}))?"
    rf"|\b({_MONTH_EN})\s+(\d{{4}})\b"
)
_ZH_MONTH = re.compile(r"(?:(\d{4})年|(去年|今年))?(十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])月(?!份?[之以]后)")
_ZH_AGO = re.compile(r"(\d{1,3}|[一二两三四五六七八九十]{1,3}|半)\s*(?:个)?(天|周|星期|个月|月|年)(?:以)?前")
_EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a few": 3,
    "a couple of": 2,
    "half a": 0,
}
_EN_AGO = re.compile(rf"\b(\d{{1,3}}|{'|'.join(_EN_NUMBERS)})\s+(day|week|month|year)s?\s+ago\b")
_UNIT_DAYS = {
    "day": 1,
    "week": 7,
    "month": 30,
    "year": 365,
    "天": 1,
    "周": 7,
    "星期": 7,
    "个月": 30,
    "月": 30,
    "年": 365,
}
_LAST_MONTH = re.compile(r"\blast month\b|上个月|上月")
_LAST_WEEK = re.compile(r"\blast week\b|上周|上个星期|上星期|上个礼拜")
_YESTERDAY = re.compile(r"\byesterday\b|昨天")
# Seasons, holidays and parts of the year, each as the month it stands for.
_PERIODS = [
    (re.compile(pattern), month)
    for pattern, month in (
        (r"\bspring\b|\beaster\b|春天|春季|开春", 4),
        (r"\bsummer\b|夏天|夏季|暑假", 7),
        (r"\bautumn\b|\b(?:in|during|over|last|this) (?:the )?fall\b|秋天|秋季|国庆", 10),
        (r"\bwinter\b|冬天|冬季|寒假", 1),
        (r"\bchristmas\b|圣诞", 12),
        (
            r"\b(?:start|beginning) of (?:the|this|last) year\b|\bearly (?:this|last) year\b|年初|开年|\bnew year\b|元旦",
            1,
        ),
        (r"春节|过年", 2),
        (r"\bfirst half of (?:the|this|last) year\b|上半年", 4),
        (r"\bmid-?year\b|年中", 6),
        (r"\bend of (?:the|last) year\b|年底|年末|年尾", 12),
    )
]
# A season or a holiday is said of plans and of the present too ("寒假想看几本书", "it's only the start of
# autumn"): it names the past only beside a word that does.
_PAST_CUE = re.compile(r"\b(?:last|did|was|were|had|used)\b|去年|那阵|那时|那会|当时|以前|之前|过(?!年)")
_LAST_YEAR_PERIOD = re.compile(r"\blast year\b|去年|\bof last year\b")
_A_YEAR_AGO = re.compile(r"\b(?:this time|around now) last year\b|去年(?:这个时候|这时候|此时|同期)")
_YEAR = re.compile(r"\bin\s+(\d{4})\b|(\d{4})年(?!\d{1,2}月)")
_LAST_YEAR = re.compile(r"\blast year\b|去年")
_FUTURE = re.compile(
    r"\b(?:will|going to|gonna|plan(?:ning)?|next|upcoming|'ll)\b|打算|计划|准备|将要|要去|下个|明年|以后|之后|我要|我们要|年底要|月要|会去"
)
_VAGUE_EN = re.compile(
    r"\b(?:used to|previously|in the past|back then|at first|originally|formerly|"
    r"before that|earlier on|did i (?:use|used) to|last time)\b"
)
_VAGUE_ZH = re.compile(r"以前|从前|过去|曾经|当时|那时|上次|上一次|原来|之前(?:我|的|说|喜欢|用|提)|我之前|你之前")


# "What did I prefer before React?", "我用React之前喜欢什么？", "在上海之前我住哪儿？": the words before the
# cue (Chinese) or after it (English) name what came next; the chat finds that memory and hands the
# versions it replaced (engine/recall/chain.py). English asks in a past tense ("did", "was", "preferred"): "what
# should I pack before my trip?" is about now.
_BEFORE_EN = re.compile(r"\b(?:before|prior to)\s+([^?!.,;:()\n]+)", re.IGNORECASE)
# The Chinese name is at most 40 characters: unbounded, a 20,000-character message with no punctuation took
# the search quadratic time (half a minute on a busy machine, found by the API fuzz).
_BEFORE_ZH = re.compile(r"([^，。？！、；：,.?!;:\s]{1,40}?)\s*(?:之前|以前)")
_PAST_TENSE_EN = re.compile(r"\b(?:did|was|were|had)\b|\b(?!need\b)[a-z]{2,}ed\b")


@dataclass(frozen=True)
class PastReference:
    at: datetime | None  # the moment asked about; None: some time before now (every version)

    @property
    def include_history(self) -> bool:
        return self.at is None


def _month_end(year: int, month: int) -> datetime | None:
    """The last moment of the month: what had come true by then, which is what "in March" asks about."""
    if not 1 <= month <= 12:
        return None
    return datetime(year + month // 12, month % 12 + 1, 1) - timedelta(seconds=1)


def _month_moment(now: datetime, month: int, year: int | None) -> datetime | None:
    """The end of the latest such month that has begun (this year's, or last year's when it is still
    ahead); None for the current month, which is now."""
    if year is None:
        year = now.year if month <= now.month else now.year - 1
        if month == now.month:
            return None  # "in November", said in November: that is now
    moment = _month_end(year, month)
    if moment is None:
        return None
    return min(moment.replace(tzinfo=now.tzinfo), now)


def _named_moments(text: str, lowered: str, now: datetime) -> list[datetime]:
    found: list[datetime | None] = []  # a month that is now counts as None, dropped at the end
    for prefixed, prefixed_year, bare, bare_year in _EN_MONTH.findall(lowered):
        name = prefixed or bare
        month = next(i for i, m in enumerate(MONTHS_EN, start=1) if m.startswith(name[:3]))
        year = prefixed_year or bare_year
        found.append(_month_moment(now, month, int(year) if year else None))
    for year, relative, month in _ZH_MONTH.findall(text):
        number = read_number(month.lstrip("0"))
        if relative == "去年":
            year = str(now.year - 1)
        elif relative == "今年":
            year = str(now.year)
        found.append(_month_moment(now, number, int(year) if year else None) if number else None)
    # "5 months ago", "5个月前": a moment, counted back in days ("half a year ago", "半年前": half the unit)
    distances = [(read_number(amount), unit) for amount, unit in _ZH_AGO.findall(text)]
    distances += [
        (int(amount) if amount.isdigit() else _EN_NUMBERS[amount], unit) for amount, unit in _EN_AGO.findall(lowered)
    ]
    for count, unit in distances:
        found.append(now - timedelta(days=_UNIT_DAYS[unit] * count if count else _UNIT_DAYS[unit] / 2))
    if _LAST_MONTH.search(lowered):
        found.append(datetime(now.year, now.month, 1, tzinfo=now.tzinfo) - timedelta(seconds=1))
    if _LAST_WEEK.search(lowered):
        found.append(now - timedelta(days=7))
    if _YESTERDAY.search(lowered):
        found.append(now - timedelta(days=1))
    if _A_YEAR_AGO.search(lowered):
        found.append(now - timedelta(days=365))
    if not found and _PAST_CUE.search(lowered):
        last_year = now.year - 1 if _LAST_YEAR_PERIOD.search(lowered) else None
        found += [_month_moment(now, month, last_year) for pattern, month in _PERIODS if pattern.search(lowered)]
    if not found:
        for in_year, zh_year in _YEAR.findall(lowered):
            year = int(in_year or zh_year)
            if year < now.year:
                found.append(datetime(year, 12, 31, 23, 59, 59, tzinfo=now.tzinfo))
        if _LAST_YEAR.search(lowered):
            found.append(datetime(now.year - 1, 12, 31, 23, 59, 59, tzinfo=now.tzinfo))
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


def named_before(message: str) -> str | None:
    """What `message` asks the time before ("React" in "What did I prefer before React?", "在上海" in
    "在上海之前我住哪儿？"), or None: no such cue, a plan, or a cue that names nothing ("我以前", "before that")."""
    lowered = message.casefold().replace("’", "'")
    if _FUTURE.search(lowered):
        return None
    english = _BEFORE_EN.search(message) if _PAST_TENSE_EN.search(lowered) else None
    match = english or _BEFORE_ZH.search(message)
    if match is None:
        return None
    named = match.group(1).strip()
    return named if query_terms(named) else None
