"""Working memory without a model: the task slots a user message states, read by rules in English,
Chinese or both. Precision first: a slot the message does not state is left alone, and a question, a
story about the past or a message about something else writes nothing. The keys are slots.py's; the
days and times are when.py's, the places and names places.py's, the budget and people amounts.py's.

Values keep one form each, so the prompt and the panel read them alike: ISO days (a range "YYYY-MM-DD –
YYYY-MM-DD"), "HH:MM", "$800" / "5000 元" / "€120" (a bare "800" when no currency is said), people an
integer, names a list."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Any

from memoryapp.lib.dates import began
from memoryapp.lib.numerals import NUM_ANY
from memoryapp.lib.scripts import HAN

from ..questions import asks_about_task
from .amounts import budget, people
from .places import names, places, venue
from .when import clock, days


def task_entries(message: str, *, now: datetime, kept: dict[str, Any]) -> dict[str, Any]:
    """The slots this user message states for the task in progress: {key: value} to write (a value that
    changes an earlier one replaces it); {} when the message states none. `kept`: the chat's entries so far
    (a message that only gives a date for a trip already kept needs no new `task`). `now`: the moment the
    message was said, from which relative dates are counted ("next Friday", "下周五", "后天")."""
    text = unicodedata.normalize("NFKC", message).strip()  # full-width digits, colons and commas as ASCII
    day, day_spans = days(text, now, kept)
    time, time_spans = clock(text)
    taken = day_spans + time_spans
    phrase = task(text, taken)
    if asks(text, request=bool(phrase)) or not phrase and narrates_past(text, now):
        return {}
    found: dict[str, Any] = {**places(text), **day}
    if time:
        found["time"] = time
    money, count, booked = budget(text, taken), people(text), names(text)
    found.update({"budget": money} if money else {})
    found.update({"people": count} if count else {})
    found.update({"names": booked} if booked else {})
    if phrase:
        found["task"] = _with_destination(phrase, found)
        if at := venue(text, found):
            found["place"] = at
    elif not kept and (len(found) < 2 or _SOMEONE_ELSE.match(text)):
        return {}  # one stray slot with no task in view ("at 5"), or another person's plans
    return found


_SOMEONE_ELSE = re.compile(r"^\s*(?:他|她|他们|她们|(?:he|she|they|my \w+)\b)", re.I)


def _with_destination(phrase: str, found: dict[str, Any]) -> str:
    """A bare motion verb names no task: "fly" becomes "fly to Denver"."""
    if _MOTION_EN.fullmatch(phrase) and "destination" in found:
        return f"{phrase} to {found['destination']}"
    return phrase


# Questions, pasts, requests -----------------------------------------------------------------------

_PAST = re.compile(
    r"\b(?:ago|yesterday|last (?:week|month|year|summer|winter|spring|autumn|fall|time|night)|went|had|was|"
    r"visited|flew|stayed)\b|去过|来过|玩过|去年|前年|昨天|前天|上周|上个月|上次",
    re.I,
)


def asks(text: str, request: bool) -> bool:
    """A question asks rather than states; a request phrased as one ("can you book…?") still states."""
    return not request and asks_about_task(text)


def narrates_past(text: str, now: datetime) -> bool:
    """A story about the past ("I went to Paris last summer") states no task in progress."""
    return bool(_PAST.search(text)) or began(text, now) is not None


# The task phrase -----------------------------------------------------------------------------------

_TRIGGER_EN = re.compile(
    r"\b(?:(?:can|could|would|will) (?:you|u) (?:please |pls )?(?:help me(?: to)?|help us(?: to)?)?|"
    r"(?:please |pls |plz )?help (?:me|us)(?: to)?|"
    r"(?:i|we)(?:'d| would) (?:like|love) to|(?:i|we) (?:want|need|have|plan|hope) to|(?:i|we) wanna|"
    r"(?:i'm|i am|we're|we are) (?:planning|going|hoping|trying) to|(?:i'm|we're) gonna|"
    r"(?:i|we) need|^\s*need|let'?s|let us|please|pls|plz)\s+"
    r"|^\s*(?=(?:book|reserve|find|buy|order|schedule|arrange|plan|rent|search for|look for|organi[sz]e)\b)",
    re.I,
)
_NEGATED_EN = re.compile(r"\b(?:don't|do not|doesn't|no need to|not|never)\s+$", re.I)
_NOT_TASK_EN = re.compile(
    r"^(?:know|ask|say|tell|thank|thanks|understand|think|remember|mention|add|note|be|confirm|change|switch|"
    r"move|make|push|keep|stick|go with|do|try|clarify|explain|talk|chat|update|see|check|forget|hear)\b",
    re.I,
)
_STOP_EN = re.compile(
    r"\s+(?:to|from|on|for|at|in|near|under|with|by|next|this|tomorrow|today|tonight|around|leaving|departing|"
    r"returning|between|out of|before|after|via|within|and|budget|the (?:day|\d))\b|\s*[,.;!?]|\s*$",
    re.I,
)
_MOTION_EN = re.compile(r"(?:go|fly|drive|travel|head|get|move|take a trip)", re.I)

_TRIGGER_ZH = re.compile(
    r"(?:请|麻烦|能不能|能否|可以|可不可以|你)*(?:帮我|帮忙|帮我们|给我)|"
    r"(?:我们|我|咱们|咱)[^,。!?]{0,6}?(?:想要|想|要|打算|准备|计划|需要|得)|^\s*(?:想要|想|要|打算|准备)"
    r"|^\s*(?=预订|预定|预约|订|买|查|找|安排|租)"  # an order: "订两张去杭州的票"
)
_CLAUSE_END = re.compile(r"[,。!?;]")
_NEGATED_ZH = re.compile(r"不(?:想|要|用|打算|准备|需要)|别$|没$")
_NOT_TASK_ZH = re.compile(r"^(?:问|知道|说|了解|聊|确认|想想|看看你|谢)")
_VERB_ZH = re.compile(
    r"^(?:预订|预定|预约|购买|查询|安排|规划|订|买|约|找|查|租|办|定|改签|退|抢|book|buy|find|get)", re.I
)
_MOTION_ZH = re.compile(r"(?:去|飞往|前往|飞|回)")
_QUANTITY_ZH = re.compile(rf"^(?:{NUM_ANY})?[张个间份辆台套位](?!人)")


def task(text: str, skip: list[tuple[int, int]]) -> str:
    """The task as a short phrase: the verb and its object, without the slots said around them."""
    return (_task_zh(text, skip) if HAN.search(text) else "") or _task_en(text)


def _task_en(text: str) -> str:
    for found in _TRIGGER_EN.finditer(text):
        if _NEGATED_EN.search(text[: found.start()]):
            return ""
        rest = re.sub(r"^(?:to|help (?:me|us)(?: to)?)\s+", "", text[found.end() :], flags=re.I)
        if not rest or _NOT_TASK_EN.match(rest):
            continue
        rest = re.sub(r"^(\w+) (?:me|us) (?=a |an |the |some |\w+s\b)", r"\1 ", rest, flags=re.I)  # "book me a train"
        phrase = _until_stop(rest)
        if re.fullmatch(r"\w+ (?:it|that|this|them)", phrase, re.I):
            return ""  # "book it": the task already kept, not a new one
        if _MOTION_EN.fullmatch(phrase) and rest[len(phrase) :].startswith(" to "):
            phrase = f"{phrase} to {_until_stop(rest[len(phrase) + 4 :])}"  # "head to the gym": where it goes
        if phrase and len(phrase.split()) <= 6:
            return phrase
    return ""


def _until_stop(text: str) -> str:
    stop = _STOP_EN.search(text)
    return text[: stop.start() if stop else len(text)].strip()


def _task_zh(text: str, skip: list[tuple[int, int]]) -> str:
    for found in _TRIGGER_ZH.finditer(text):
        if _NEGATED_ZH.search(found.group()) or _NEGATED_ZH.search(text[: found.start()]):
            return ""
        clause = _CLAUSE_END.search(text, found.end())
        end = clause.end() if clause else len(text)
        phrase = "".join(char for at, char in enumerate(text[found.end() : end], found.end()) if not _within(at, skip))
        phrase = re.sub(r"一下|[,。!?;]|[吧呢啊了]+$", "", phrase).strip()
        if not phrase or _NOT_TASK_ZH.match(phrase):
            continue
        return _core_zh(phrase)
    return ""


def _core_zh(phrase: str) -> str:
    """订一张去北京的机票 → 订机票: the verb and the head noun after the last 的; 去三亚玩 stays whole."""
    verb = _VERB_ZH.match(phrase)
    if verb is None:
        motion = _MOTION_ZH.search(phrase)
        return phrase[motion.start() :] if motion else phrase[:12]
    rest = _QUANTITY_ZH.sub("", phrase[verb.end() :])
    rest = rest.rsplit("的", 1)[-1]
    joint = " " if verb.group().isascii() or rest[:1].isascii() else ""
    return (verb.group() + joint + rest).strip()


def _within(at: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= at < end for start, end in spans)
