"""The counts a message states for a task: its budget ("under $800", "预算五千元", "不超过三千块") and how
many people it is for ("for the four of us", "两个人", "一共4人"), with the numbers written in words or
in Chinese numerals read as integers (lib/numerals.py)."""

from __future__ import annotations

import re

from memoryapp.lib.numerals import EN_NUMBERS, ZH_NUM, number, zh_number

# Budget ------------------------------------------------------------------------------------------

_CURRENCIES = {
    "$": ("$", "dollar", "dollars", "buck", "bucks", "usd", "美元", "美金", "刀"),
    "€": ("€", "euro", "euros", "eur", "欧元", "欧"),
    "£": ("£", "pound", "pounds", "gbp", "英镑"),
    "元": ("¥", "￥", "yuan", "rmb", "cny", "元", "块", "块钱", "人民币"),
}
_UNIT = "|".join(sorted((re.escape(w) for words in _CURRENCIES.values() for w in words[1:]), key=len, reverse=True))
_AMOUNT = re.compile(
    rf"(?P<sym>[$€£¥￥])\s?(?P<n>\d[\d,]*(?:\.\d+)?)\s?(?P<k>k\b|千|万)?"
    rf"|(?P<n2>\d[\d,]*(?:\.\d+)?|{ZH_NUM})\s?(?P<k2>k\b|千|万)?\s*(?P<unit>{_UNIT})?",
    re.I,
)
_CUE_BEFORE = re.compile(
    r"\b(?:budget(?: is| of|:)?|under|below|less than|no more than|not more than|at most|max(?:imum)?|up to|within|cap(?:ped)? at)\b"
    r"|预算|不超过|不要超过|别超过|不能超过|控制在|最多|上限",
    re.I,
)
_CUE_AFTER = re.compile(r"^\s*(?:budget|max\b|or less|tops)|^\s*(?:以内|之内|以下|封顶)", re.I)
_NOT_MONEY = re.compile(
    r"^\s*(?:天|晚|小时|分钟|个|人|位|张|间|号|日|点|km|公里|people|persons|adults|nights?|days?|hours?|minutes?|"
    r"of us|stars?|%|x\b)",
    re.I,
)


def budget(text: str, skip: list[tuple[int, int]]) -> str:
    """The budget as "$800", "5000 元", "€120", or the bare number when no currency is said."""
    for match in _AMOUNT.finditer(text):
        if not match.group().strip() or any(s <= match.start() < e for s, e in skip):
            continue
        before, after = text[max(0, match.start() - 24) : match.start()], text[match.end() :]
        cued = _CUE_BEFORE.search(before) or _CUE_AFTER.match(after)
        has_unit = match.group("sym") or match.group("unit")
        if cued and (has_unit or not _NOT_MONEY.match(after)):
            return _money(match)
    return ""


def _money(match: re.Match) -> str:
    raw = (match.group("n") or match.group("n2")).replace(",", "")
    amount = float(raw) if re.fullmatch(r"\d+(?:\.\d+)?", raw) else float(zh_number(raw))
    scale = (match.group("k") or match.group("k2") or "").lower()
    amount *= {"k": 1000, "千": 1000, "万": 10000}.get(scale, 1)
    written = f"{amount:.2f}".rstrip("0").rstrip(".")
    currency = (match.group("sym") or match.group("unit") or "").lower()
    symbol = next((s for s, words in _CURRENCIES.items() if currency in words), "")
    if symbol == "元":
        return f"{written} 元"
    return f"{symbol}{written}"


# People ------------------------------------------------------------------------------------------

_PEOPLE_EN = rf"(?P<n>{EN_NUMBERS})"
_PEOPLE = [
    re.compile(rf"(?:一共|总共|共|一行)\s*(?P<n>\d+|{ZH_NUM})\s*(?:个人|人|位|口)"),
    re.compile(
        rf"\b(?P<a>{EN_NUMBERS})\s+adults?\s*(?:and|,|\+|&|plus)\s*(?P<c>{EN_NUMBERS})\s+(?:kids?|child(?:ren)?|infants?|babies|baby)",
        re.I,
    ),
    re.compile(rf"(?P<a>\d+|{ZH_NUM})个?大人\s*(?:和|加|带|,)?\s*(?P<c>\d+|{ZH_NUM})个?(?:小孩|孩子|儿童|宝宝)"),
    re.compile(rf"\b(?:for|of)\s+the\s+{_PEOPLE_EN}\s+of\s+us\b", re.I),
    re.compile(rf"\b{_PEOPLE_EN}\s+(?:of us|people|persons|adults|guests|passengers|travell?ers|pax|ppl)\b", re.I),
    re.compile(rf"\b(?:party of|table for|group of|for a group of)\s+{_PEOPLE_EN}\b", re.I),
    re.compile(r"(?:我们|咱们|咱|他们)?(?P<n>俩)(?!个)"),
    re.compile(rf"一家\s*(?P<n>{ZH_NUM}|\d+)\s*口"),
    re.compile(rf"(?:我们|咱们|咱俩)\s*(?P<n>{ZH_NUM}|\d+)\s*个(?!人)"),
    re.compile(rf"(?P<n>\d+|{ZH_NUM})\s*(?:个人|人(?![民])|位(?:客人|乘客)?(?![置子]))"),
]


def people(text: str) -> int | None:
    for pattern in _PEOPLE:
        match = pattern.search(text)
        if match is None:
            continue
        groups = match.groupdict()
        if groups.get("a"):
            adults, children = number(groups["a"]), number(groups["c"])
            return adults + children if adults and children else None
        count = number(groups["n"])
        if count:
            return count
    return None
