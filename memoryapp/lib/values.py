"""The values a sentence carries: numbers, times, dates, amounts, versions, codes, URLs and Latin-script
names. A memory must keep each one exactly as the user wrote it, and two sentences that differ in one are
not the same memory ("flight LH2231" is not "flight LH2235", whatever their vectors say).
"""

from __future__ import annotations

import re
from collections import Counter

# A URL or a bare domain with a path; a token holding a digit, with its inner separators ("5:15", "3.11",
# "12,500", "2025/08/31", "v2.3.1", "LH2231", "8K261"); a capitalised Latin word that does not open the
# sentence ("Munich", "Priya", "McKinsey") or an all-capital one ("IKEA").
_URL = r"(?:https?://|www\.)[^\s，。；、）)]+?(?=[.,;:!?]?(?:[\s，。；、）)]|$))|[a-z0-9-]+(?:\.[a-z0-9-]+)+/[^\s，。；、）)]*"
_CODED = r"[A-Za-z]*\d\w*(?:[.:,/\-·]\w*\d\w*)*"
_NAME = r"(?<![\w.])(?:[A-Z]\.){2,}|(?<![\w.])(?!I\b|I['\u2019])[A-Z][\w&'-]*"  # "I", "I'm" are no names
VALUE = re.compile(f"{_URL}|{_CODED}|{_NAME}", re.ASCII)
_OPENS = re.compile(r"(?:^|[.!?。！？]\s*|[\"“(（]\s*)$")
_INITIAL = re.compile(r"\b(?:[A-Z]|Dr|Mr|Mrs|Ms|Mx|St|Mt|Prof)\.\s*$")  # "J.P. Morgan", "Dr. Okafor"
_MASK = "\u2063"  # an invisible separator: stands for any value


def values_in(text: str) -> list[str]:
    """The values of `text`, in order, as written (a capitalised word that opens a sentence is no name)."""
    found = []
    for match in VALUE.finditer(text):
        value, before = match.group(), text[: match.start()]
        if value[0].isupper() and not value[1:2] == "." and _OPENS.search(before) and not _INITIAL.search(before):
            continue
        found.append(value)
    return found


def _values_at(text: str) -> list[re.Match]:
    return [m for m in VALUE.finditer(text) if m.group() in values_in(text)]


def _neighbour(text: str, before: bool) -> str:
    """The word next to a value: the last (or first) Latin word, or two Chinese characters."""
    match = re.search(r"(\w+)\W*$", text) if before else re.match(r"\W*(\w+)", text)
    if match is None:
        return ""
    word = match.group(1)
    return (word[-2:] if before else word[:2]) if not word.isascii() else word


def dropped_values(source: str, said: str) -> list[str]:
    """The values of `source` that a rewording of it (`said`) cut or changed: one of its values is a piece
    of the source's ("at 5" for "at 5:15"), or it keeps the words on both sides of a value and not the
    value ("每周五下午开周会" for "每周五下午3:30开周会"), or it holds a value the source never said in
    its place. A value `said` leaves out together with its words ("I like jazz" of "…hunter2 and I like
    jazz") is not dropped: the memory is about something else."""
    kept = values_in(said)
    dropped = []
    for match in _values_at(source):
        value = match.group()
        if value in said:
            continue
        left, right = _neighbour(source[: match.start()], True), _neighbour(source[match.end() :], False)
        cut = any(piece != value and piece in value for piece in kept)
        around = bool(left and right) and left in said and right in said and said.find(left) < said.rfind(right)
        if cut or around:
            dropped.append(value)
    return dropped


def same_values(a: str, b: str) -> bool:
    return Counter(values_in(a)) == Counter(values_in(b))


def differs_only_in_values(a: str, b: str) -> bool:
    """`a` and `b` say the same words around different values: a new value for the same thing."""
    masked = lambda text: " ".join(VALUE.sub(_MASK, text).casefold().split()).rstrip(" .。")  # noqa: E731
    return not same_values(a, b) and masked(a) == masked(b)
