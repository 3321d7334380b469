"""The places and names a message states for a task: where it goes ("to Beijing", "去北京", "飞上海"),
where it leaves from ("from Boston", "从广州出发"), where it happens ("a table at Nobu"), and the names it
is booked under ("under the name Li Wei", "乘客是张伟和王芳")."""

from __future__ import annotations

import re
from typing import Any

from memoryapp.lib.scripts import HAN_RANGES

# Places ------------------------------------------------------------------------------------------

# A month is not a place, written whole or short ("make it December 30", "Dec 30"), nor a weekday.
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NOT_PLACE_EN = re.compile(
    rf"^(?:I|{_MONTHS}|{'|'.join(d.title() for d in _WEEKDAYS)}|Today|Tomorrow|Tonight)\b\.?(?:\s|$)"
)
PLACE_EN = rf"[A-Z][\w'.-]*(?:\s+(?:[A-Z][\w'-]*|de|del|of))*(?<!\s(?:de|of))|[{HAN_RANGES}]{{2,8}}"
_LOWER_STOP = {"the", "a", "an", "my", "our", "your", "see", "visit", "get", "be", "work", "school", "bed", "it", "me"}
_FROM_TO = re.compile(rf"\bfrom\s+({PLACE_EN})\s+to\s+({PLACE_EN})")
_ORIGIN_EN = re.compile(rf"\b(?:out of|leaving from|leaving|departing from|departing|starting from)\s+({PLACE_EN})")
_TO_EN = re.compile(rf"\b(?:to|visit|visiting)\s+({PLACE_EN})")
# "to X" names a destination only in a message about going somewhere ("send it to Alex" does not).
_TRAVEL = re.compile(
    r"\b(?:fly|flying|flights?|trips?|travel\w*|go|going|goes|head\w*|driv\w*|trains?|bus|tickets?|visit\w*|"
    r"mov\w*|destination|vacation|holiday|hotels?|journey|ride|route|cruise)\b",
    re.I,
)
_TO_LOWER = re.compile(
    r"\b(?:fly|flight|flights|trip|tickets?|train|bus|drive|travel(?:l?ing)?|head(?:ing)?)\s+to\s+([a-z][\w'-]+)"
)
_CHANGED_EN = re.compile(
    rf"\b(?:make (?:it|that)|switch (?:it |that )?to|go with|let'?s do)\s+({PLACE_EN})|({PLACE_EN})\s+instead\b"
)
_IN_EN = re.compile(rf"\b(?i:hotel|room|stay|staying|apartment|airbnb)\s+in\s+({PLACE_EN})")
_AT_EN = re.compile(rf"\bat\s+({PLACE_EN})")

_ZH_PLACE = f"[{HAN_RANGES}]{{2,6}}?|[A-Za-z][A-Za-z ]*?[A-Za-z]"
_ZH_AFTER = r"(?=的|玩|旅游|旅行|出差|度假|看|参加|自驾|逛|过|住|待|呆|吧|呢|出发|[,。!?;\s]|$)"
_NOT_PLACE_ZH = re.compile(
    r"^(?:[零一二两俩三四五六七八九十百千万\d]+[个位人张间天晚号点]|\d|哪|这|那|时|底|了|吃|喝|买|找|办|做|拿|接|送|见|上班|上学|上课|下班|今|明|后天|周|星期|下周)"
)
_FROM_ZH = re.compile(rf"从\s*({_ZH_PLACE})\s*(?=出发|走|飞|坐|去|到|回|开车)")
_TO_ZH = re.compile(rf"(?:(?<!改)(?<!推)(?<!提前)到|去|飞往|前往|飞)\s*({_ZH_PLACE}){_ZH_AFTER}")
_CHANGED_ZH = re.compile(rf"(?:改成|换成|改为|改去|换到)\s*({_ZH_PLACE}){_ZH_AFTER}")


def places(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for pattern, keys in ((_FROM_TO, ("origin", "destination")), (_FROM_ZH, ("origin",)), (_ORIGIN_EN, ("origin",))):
        for match in pattern.finditer(text):
            for key, value in zip(keys, match.groups(), strict=False):
                _put_place(found, key, value)
    changed_to = "origin" if re.search(r"origin|leaving from|departure|出发|始发", text, re.I) else "destination"
    for pattern in (_TO_EN, _TO_ZH, _TO_LOWER, _IN_EN):
        if pattern is _TO_EN and not _TRAVEL.search(text):
            continue
        for match in pattern.finditer(text):
            _put_place(found, "destination", match.group(1))
    for pattern in (_CHANGED_EN, _CHANGED_ZH):
        for match in pattern.finditer(text):
            _put_place(found, changed_to, match.group(1) or match.group(2), replace=True)
    return found


def _put_place(found: dict[str, str], key: str, value: str, replace: bool = False) -> None:
    value = value.strip().rstrip(".")  # the sentence's full stop, not part of "Beijing" (a "St." keeps its own)
    if key in found and not replace or _NOT_PLACE_EN.match(value) or _NOT_PLACE_ZH.match(value):
        return
    if value.islower() and value in _LOWER_STOP or key == "destination" and found.get("origin") == value:
        return
    found[key] = value


def venue(text: str, found: dict[str, Any]) -> str:
    """A named place the task happens at ("a table at Nobu"), not a city the trip goes to."""
    for match in _AT_EN.finditer(text):
        if not _NOT_PLACE_EN.match(match.group(1)) and match.group(1) not in found.values():
            return match.group(1)
    return ""


# Names -------------------------------------------------------------------------------------------

_NAME_EN = r"[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2}"
_NAMES_EN = re.compile(
    rf"\b(?i:under the name(?: of)?|in the name of|(?:passengers?|travell?ers?|guests?|names?)(?: is| are| will be)?:?)"
    rf"\s+({_NAME_EN}(?:\s*(?:,|and|&)\s*{_NAME_EN})*)"
)
_NAME_ZH = f"[{HAN_RANGES}]{{2,4}}"
_NAMES_ZH = re.compile(
    rf"(?:乘客|乘机人|旅客|入住人|客人|联系人|预订人|姓名|名字)(?:是|叫|为|写|:|\s)\s*"
    rf"([{HAN_RANGES}、,/ ]{{2,30}})"
    rf"|(?:用|以|写)({_NAME_ZH})的(?:名字|名义)"
)


def names(text: str) -> list[str]:
    """The names the task is booked under, only where the message says so."""
    for match in _NAMES_EN.finditer(text):
        # The cue is case-blind ("Passengers:"), the names are not: each must be capitalised.
        found = [n.strip() for n in re.split(r"\s*(?:,|\band\b|&)\s*", match.group(1)) if n.strip()]
        if found and all(n[0].isupper() for n in found):
            return found
    said = _NAMES_ZH.search(text)
    if said:
        found = [n for n in re.split(r"\s*[、,和与跟及/ ]\s*", said.group(1) or said.group(2)) if n]
        if found and all(re.fullmatch(_NAME_ZH, n) for n in found):
            return found
    return []
