"""Numbers written in words: digits, English number words, Chinese numerals ("十二", "两", "一万五", "三千").
One reader for every rule that counts: relative dates (dates.py), months asked about (engine/recall/past.py),
a chat's budget, people and days (engine/chat_state)."""

from __future__ import annotations

import re

_ZH_DIGIT = {"零": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000}
_EN_NUMBER = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
ZH_NUM = "[零一二两俩三四五六七八九十百千万]+"
NUM_ANY = rf"\d+|{ZH_NUM}"
EN_NUMBERS = r"\d{1,3}|" + "|".join(_EN_NUMBER)


def zh_number(text: str) -> int:
    """一万五 → 15000, 三千 → 3000, 十二 → 12: a colloquial tail ("一万五") counts in the unit below."""
    total = section = digit = 0
    last_unit, zero = 1, False
    for char in text:
        if char in _ZH_DIGIT:
            digit, zero = _ZH_DIGIT[char], zero or char == "零"
        elif char == "万":
            total, section, digit, last_unit = (total + section + digit) * 10000, 0, 0, 10000
        elif char in _ZH_UNIT:
            section, digit, last_unit = section + (digit or 1) * _ZH_UNIT[char], 0, _ZH_UNIT[char]
    if digit and last_unit >= 100 and not zero:
        digit *= last_unit // 10
    return total + section + digit


def number(text: str | None) -> int | None:
    """An integer written in digits, English words or Chinese numerals; None for anything else ("半")."""
    text = (text or "").strip().lower().replace(",", "")
    if text.isdigit():
        return int(text)
    if text in _EN_NUMBER:
        return _EN_NUMBER[text]
    return zh_number(text) if re.fullmatch(ZH_NUM, text) else None
