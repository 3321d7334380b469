"""With a model, the reply itself keeps the chat's working memory: no call of its own. The prompt asks the
model to end a reply that settles or changes a detail of the task in progress with one line,
`<keep>{"destination": "Beijing", "dates": "2025-12-30 – 2026-01-03"}</keep>` (only what changed; null
removes a key). The line is cut from the reply before anyone sees it (`TrailerStream` over streamed deltas,
`split` on the whole text), and what it holds is checked like every model output before it is written."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from .store import ChatStateInvalid, check_key

logger = logging.getLogger(__name__)

OPEN, CLOSE = "<keep>", "</keep>"
MAX_KEYS = 8  # one reply settles a few details, not a database
INSTRUCTION = (
    "This chat keeps the details of the task in progress (the keeping_in_mind block). When the user's message "
    "settles or changes one (what they are doing, a destination, dates, a time, a budget, how many people, "
    "names), end your reply with one last line holding only what changed, as JSON: "
    '<keep>{"destination": "Beijing", "dates": "2025-12-30 – 2026-01-03"}</keep> '
    "(a short English key; null removes one). Dates as YYYY-MM-DD. Otherwise write no such line."
)
_TRAILER = re.compile(re.escape(OPEN) + r"(.*?)(?:" + re.escape(CLOSE) + r"|$)", re.S)


def split(text: str) -> tuple[str, dict[str, Any]]:
    """The reply without its trailer lines, and the changes the last valid one holds ({} if none)."""
    changes: dict[str, Any] = {}
    for found in _TRAILER.finditer(text):
        changes = parse(found.group(1)) or changes
    return _TRAILER.sub("", text).rstrip(), changes


def parse(raw: str) -> dict[str, Any]:
    """A trailer's JSON object as {key: value}; {} for anything else (logged: a model's slip, not the user's)."""
    try:
        data = json.loads(raw.strip())
    except ValueError:
        logger.info("a reply's working-memory line is not JSON: %.200s", raw)
        return {}
    if not isinstance(data, dict) or len(data) > MAX_KEYS:
        logger.info("a reply's working-memory line is not a small object: %.200s", raw)
        return {}
    changes = {}
    for key, value in data.items():
        try:
            changes[check_key(str(key))] = value
        except ChatStateInvalid:
            logger.info("a reply's working-memory line has a bad key: %.80s", key)
    return changes


class TrailerStream:
    """Streamed deltas in, what the user may see out: from the trailer's opening tag on, nothing. A tag split
    across deltas ("<ke", "ep>") is held back until the next delta decides. `held` keeps what was cut."""

    def __init__(self) -> None:
        self.pending = ""
        self.held = ""
        self.inside = False

    def feed(self, delta: str) -> str:
        if self.inside:
            self.held += delta
            return ""
        text = self.pending + delta
        at = text.find(OPEN)
        if at >= 0:
            self.inside, self.pending, self.held = True, "", text[at:]
            return text[:at]
        keep = _partial_open(text)
        self.pending = text[len(text) - keep :] if keep else ""
        return text[: len(text) - keep] if keep else text

    def close(self) -> str:
        text, self.pending = self.pending, ""
        return text


def _partial_open(text: str) -> int:
    """How many characters at the end of `text` could still be the start of the opening tag."""
    for size in range(min(len(OPEN) - 1, len(text)), 0, -1):
        if OPEN.startswith(text[-size:]):
            return size
    return 0
