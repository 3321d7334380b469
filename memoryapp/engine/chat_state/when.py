"""The days and times a message states for a task, resolved against the moment it was said: "Dec 30",
"next Friday", "the 2nd", "12月30号", "下周五", "后天" become ISO days; "5:15 pm", "下午三点半" become "HH:MM".

Written as rules rather than through dateparser's search: its search misses Chinese month-days and
relative weekdays ("12月30号", "下周五") and reads a bare "the 2nd" as two months on; English month names
are still handed to dateparser, which reads their many spellings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from memoryapp.lib.numerals import EN_NUMBERS, ZH_NUM, number

RANGE_DASH = " – "

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])"
_ZH_DAY = rf"(?:{_DAY}|{ZH_NUM})"
_WEEKDAY_EN = ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")
_WEEKDAY_ZH = "一二三四五六日天"

# (pattern, kind) in order of precedence: a span taken by an earlier one is not read again.
_DATES = [
    (r"\b(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})\b", "ymd"),
    (rf"(?:(?P<y>\d{{4}})年)?(?P<m>{_ZH_DAY})月(?P<d>{_ZH_DAY})[日号]?", "ymd"),
    (rf"\b(?P<text>{_MONTH}\s*{_DAY}{_ORD}(?:,?\s*\d{{4}})?)\b(?!:)", "en"),
    (rf"\b(?P<text>(?:the\s+)?{_DAY}{_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s*\d{{4}})?)\b", "en"),
    (r"\b(?P<m>1[0-2]|0?[1-9])/(?P<d>[12]\d|3[01]|0?[1-9])(?:/(?P<y>\d{2,4}))?\b", "ymd"),
    (r"大后天", "+3"),
    (r"\b(?:the )?day after tomorrow\b|后天", "+2"),
    (r"\btomorrow\b|明天|明晚|明早|明儿", "+1"),
    (r"\btoday\b|\btonight\b|今天|今晚|今早|今儿", "+0"),
    (rf"\bin (?P<n>{EN_NUMBERS}) days?\b|(?P<n2>\d+|{ZH_NUM})天(?:后|以后|之后)", "+n"),
    (rf"\b(?:(?P<which>this|next|coming)\s+)?(?P<wd>{'|'.join(_WEEKDAY_EN)})day\b", "weekday"),
    (rf"(?P<which>这个?|本|下个?|下下个?)?(?:周|星期|礼拜)(?P<wd>[{_WEEKDAY_ZH}1-7])", "weekday"),
    (rf"下个?月(?P<d>{_ZH_DAY})[号日]", "next-month"),
    (rf"(?<![月\d])(?P<d>{_ZH_DAY})(?:号|日(?![游元本子常]))", "day"),
    (rf"\b(?:the\s+)?(?P<d>{_DAY})(?:st|nd|rd|th)\b", "day"),
    (rf"(?<=[-–~])\s*(?P<d>{_DAY})\b(?!\s*(?:am|pm|:|[ap]\.m))", "day"),  # "Jan 5-9"
]
_DATE_PATTERNS = [(re.compile(pattern, re.I), kind) for pattern, kind in _DATES]
_CONNECTOR = re.compile(r"^\s*(?:-|–|—|~|to|through|thru|until|till|and|到|至|～)\s*$", re.I)
_CHANGE = re.compile(r"改成|换成|改到|改为|换到|\binstead of\b", re.I)
_RETURN = re.compile(r"\b(?:back|return(?:ing)?|check(?:ing)?[- ]?out|home)\b|回来|返回|回程|返程|退房|回家", re.I)
_LEAVE = re.compile(r"\b(?:leav(?:e|ing)|depart(?:ing)?|check(?:ing)?[- ]?in|head out)\b|出发|入住|去程", re.I)


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    kind: str
    match: re.Match


def mentions(text: str) -> list[Mention]:
    """Every day named in `text`, in order, each span read once (a full date before its day-only tail)."""
    taken: list[Mention] = []
    for pattern, kind in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if not any(start < m.end and m.start < end for m in taken):
                taken.append(Mention(start, end, kind, match))
    return sorted(taken, key=lambda m: m.start)


def _day_on_or_after(day: int, floor: date, month_of: date | None = None) -> date | None:
    """The day-of-month `day` in `month_of`'s month, or the first month after on or after `floor`."""
    year, month = (month_of or floor).year, (month_of or floor).month
    for _ in range(13):
        try:
            found = date(year, month, day)
        except ValueError:
            found = None
        if found and found >= floor:
            return found
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None


def _resolve(mention: Mention, today: date, anchor: date | None) -> date | None:
    groups, kind = mention.match.groupdict(), mention.kind
    if kind == "ymd":
        month, day = number(groups["m"]), number(groups["d"])
        year = int(groups["y"]) if groups.get("y") else None
        if year is not None and year < 100:
            year += 2000
        try:
            found = date(year or today.year, month or 0, day or 0)
        except ValueError:
            return None
        return found if year or found >= (anchor or today) else found.replace(year=found.year + 1)
    if kind == "en":
        return _english(groups["text"], anchor or today)
    if kind[0] == "+":
        step = kind[1:]
        return today + timedelta(days=int(step) if step.isdigit() else number(groups["n"] or groups["n2"]) or 0)
    if kind == "weekday":
        return _weekday(groups["wd"].lower(), (groups["which"] or "").lower(), today)
    if kind == "next-month":
        first = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
        return _day_on_or_after(number(groups["d"]) or 0, first)
    return _day_on_or_after(number(groups["d"]) or 0, anchor or today)


def _english(text: str, floor: date) -> date | None:
    import dateparser  # ~1 s to import: only when a message names a month

    settings: dict[str, Any] = {"PREFER_DATES_FROM": "future", "RELATIVE_BASE": datetime.combine(floor, time())}
    parsed = dateparser.parse(re.sub(r"^the\s+", "", text, flags=re.I), languages=["en"], settings=settings)
    return parsed.date() if parsed else None


def _weekday(name: str, which: str, today: date) -> date:
    """ "Friday", "this Friday", "周五": the next one from today; "next Friday", "下周五": next week's."""
    index = next((i for i, w in enumerate(_WEEKDAY_EN) if name.startswith(w)), None)
    if index is None:
        index = 6 if name in "日天7" else (int(name) - 1 if name.isdigit() else _WEEKDAY_ZH.index(name))
    if which.startswith("下") or which == "next":
        weeks = 2 if which.startswith("下下") else 1
        return today - timedelta(days=today.weekday()) + timedelta(weeks=weeks, days=index)
    return today + timedelta(days=(index - today.weekday()) % 7)


def days(text: str, now: datetime, kept: dict) -> tuple[dict[str, str], list[tuple[int, int]]]:
    """{"date": …} or {"dates": "start – end"}, and the spans read (the task phrase leaves them out)."""
    today = now.date()
    kept_range = _kept_range(kept)
    reference = kept_range[0] if kept_range else _iso(kept.get("date"))
    found: list[date] = []
    spans = []
    for mention in mentions(text):
        anchor = found[-1] if found else None
        if anchor is None and mention.kind == "day" and reference and reference >= today:
            resolved = _day_on_or_after(number(mention.match.group("d")) or 0, today, month_of=reference)
        else:
            resolved = _resolve(mention, today, anchor)
        if resolved:
            found.append(resolved)
            spans.append((mention.start, mention.end))
    if not found:
        return {}, spans
    if len(found) >= 2 and _CHANGE.search(text[spans[0][1] : spans[1][0]]):
        return _one_day(text, found[1], kept, kept_range), spans  # "3号改成4号": the second replaces the first
    if len(found) >= 2 and found[1] > found[0] and _joined(text, spans):
        return {"dates": _range(found[0], found[1])}, spans
    return _one_day(text, found[0], kept, kept_range), spans


def _joined(text: str, spans: list[tuple[int, int]]) -> bool:
    between = text[spans[0][1] : spans[1][0]]
    return bool(_CONNECTOR.match(re.sub(r"\bthe\s*$", "", between)) or _RETURN.search(text))


def _one_day(text: str, day: date, kept: dict, kept_range: tuple[date, date] | None) -> dict[str, str]:
    """One day for a trip kept as a range moves one end: the return or the start when the message says
    which, else the nearer one; otherwise it is the task's date."""
    if kept_range is None or "date" in kept:
        return {"date": day.isoformat()}
    start, end = kept_range
    moves_end = bool(_RETURN.search(text)) or not _LEAVE.search(text) and abs(day - end) < abs(day - start)
    start, end = (start, day) if moves_end else (day, end)
    return {"dates": _range(start, end)} if start <= end else {"date": day.isoformat()}


def _range(start: date, end: date) -> str:
    return f"{start.isoformat()}{RANGE_DASH}{end.isoformat()}"


def _iso(value: object) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _kept_range(kept: dict) -> tuple[date, date] | None:
    parts = str(kept.get("dates") or "").split(RANGE_DASH.strip())
    if len(parts) != 2:
        return None
    start, end = _iso(parts[0].strip()), _iso(parts[1].strip())
    return (start, end) if start and end else None


# Times -------------------------------------------------------------------------------------------

_ZH_HOUR = rf"(?:\d{{1,2}}|{ZH_NUM})"
_ZH_PERIOD = r"(?P<period>早上|上午|中午|下午|晚上|傍晚|凌晨|今晚|明晚|晚|早)"
_TIMES = [
    re.compile(r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)", re.I),
    re.compile(
        r"\b(?:at|by|around)\s+(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<late>tonight|in the (?:evening|afternoon)|o'clock)",
        re.I,
    ),
    re.compile(
        rf"{_ZH_PERIOD}?\s*(?P<h>{_ZH_HOUR})(?:点|:|：)(?:(?P<half>半)|(?P<quarter>一刻|三刻)|(?P<m>\d{{1,2}}|{ZH_NUM})分?)?"
    ),
    re.compile(r"(?<![\d:/])(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?![\d:])"),
    re.compile(r"\b(?P<noon>noon|midday|midnight)\b|(?P<noon_zh>中午十二点)", re.I),
]
_LATE = ("pm", "p.m.", "tonight", "in the evening", "in the afternoon", "下午", "晚上", "傍晚", "今晚", "明晚", "晚")


def clock(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The time of day as "HH:MM" ("" when none), and its span."""
    for pattern in _TIMES:
        for match in pattern.finditer(text):
            value = _clock(match, text)
            if value:
                return value, [match.span()]
    return "", []


def _clock(match: re.Match, text: str) -> str:
    groups = match.groupdict()
    if groups.get("noon") or groups.get("noon_zh"):
        return "00:00" if (groups.get("noon") or "").lower() == "midnight" else "12:00"
    hour, minute = number(groups["h"]), 0
    if groups.get("half"):
        minute = 30
    elif groups.get("quarter"):
        minute = 15 if groups["quarter"] == "一刻" else 45
    elif groups.get("m"):
        minute = number(groups["m"]) or 0
    period = (groups.get("ampm") or groups.get("late") or groups.get("period") or "").lower()
    if hour is None or hour > 24 or minute > 59:
        return ""
    if "period" in groups and not period and not groups["h"].isdigit() and hour == 1 and not minute:
        return ""  # "快一点": "a bit", not one o'clock
    if period in _LATE and hour < 12 or period == "中午" and hour < 11:
        hour += 12
    if period in ("am", "a.m.") and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}"
