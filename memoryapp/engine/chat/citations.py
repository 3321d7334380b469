"""Which memories a model's reply used: the numbered markers it wrote inline ("…the vegetarian menu [1].").

The prompt numbers the memories it hands a model (engine/chat/context.py); the reply marks what it used
with `[n]` (or `[1, 2]`). A marker counts only outside code: with an even number of backticks before it,
so `arr[1]` in a code span or fence is left alone. A number the prompt did not list is invented: it is
dropped from the reply. `MarkerStream` does the same over streamed deltas, where a marker may arrive in
pieces ("[", "1", "]"): it holds back what could still become one until the next delta decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

MARKER = re.compile(r"\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]")
_OPENING = re.compile(r"\[[\d,\s]{0,12}$")  # the tail of a delta that may still become a marker
Piece = str | int  # text, or the number of a memory the reply marked here


def numbers(marker: re.Match) -> list[int]:
    """The numbers in a marker matched by MARKER (its last group, in a pattern built around it too)."""
    return [int(n) for n in marker.group(marker.re.groups).split(",")]


def _markers(text: str) -> Iterator[re.Match]:
    """The markers outside code, in order."""
    for marker in MARKER.finditer(text):
        if text.count("`", 0, marker.start()) % 2 == 0:
            yield marker


def used(text: str, offered: int) -> list[int]:
    """The numbers (1..offered) the reply marked, each once, in the order first marked."""
    seen: dict[int, None] = {}
    for marker in _markers(text):
        seen.update((n, None) for n in numbers(marker) if 1 <= n <= offered)
    return list(seen)


def pieces(text: str, offered: int) -> list[Piece]:
    """The reply as text and marked numbers (1..offered); invented numbers are left out."""
    out: list[Piece] = []
    at = 0
    for marker in _markers(text):
        out.append(text[at : marker.start()])
        valid = [n for n in numbers(marker) if 1 <= n <= offered]
        last = out[-1]
        if not valid and isinstance(last, str) and text[marker.start() - 1 : marker.start()] == " ":
            out[-1] = last[:-1]  # "tea [9]." reads "tea." once the invented marker is gone
        out.extend(valid)
        at = marker.end()
    out.append(text[at:])
    return [piece for piece in out if piece != ""]


def without_invented(text: str, offered: int) -> str:
    """The reply with markers of numbers the prompt did not list removed (the valid ones stay)."""
    return "".join(piece if isinstance(piece, str) else f"[{piece}]" for piece in pieces(text, offered))


def without_markers(text: str) -> str:
    """The reply with every marker gone: what a later prompt carries (its numbers meant another turn's list)."""
    return "".join(piece for piece in pieces(text, 0) if isinstance(piece, str))


class MarkerStream:
    """Streamed deltas in, text and marked numbers out, in order; a marker split across deltas comes out
    whole. `close()` returns what was still held back."""

    def __init__(self, offered: int):
        self.offered = offered
        self.held = ""
        self.ticks = 0  # backticks already let through: odd while inside code

    def feed(self, delta: str) -> list[Piece]:
        text = self.held + delta
        tail = _OPENING.search(text)
        outside_code = tail and (self.ticks + text.count("`", 0, tail.start())) % 2 == 0
        keep = tail.start() if tail is not None and outside_code else len(text)
        self.held = text[keep:]
        return self._emit(text[:keep])

    def close(self) -> list[Piece]:
        text, self.held = self.held, ""
        return self._emit(text)

    def _emit(self, text: str) -> list[Piece]:
        if not text:
            return []
        out: list[Piece] = []
        at = 0
        for marker in MARKER.finditer(text):
            if (self.ticks + text.count("`", 0, marker.start())) % 2:
                continue
            out.append(text[at : marker.start()])
            out.extend(n for n in numbers(marker) if 1 <= n <= self.offered)
            at = marker.end()
        out.append(text[at:])
        self.ticks += text.count("`")
        return [piece for piece in out if piece != ""]
