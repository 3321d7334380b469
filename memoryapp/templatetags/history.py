"""A memory's history line, in the page's language. Events store their note in English, as the engine
wrote it (engine/memories/write.py, forgetting, the chat's "forget"); the page translates the ones it knows
and shows any other as stored."""

from __future__ import annotations

import re

from django import template
from django.utils.translation import gettext as _

register = template.Library()

# (the stored note's shape, what the page says): one list, beside the code that writes them.
_NOTES = (
    (re.compile(r"replaced by #(?P<id>\d+)"), lambda m: _("replaced by #%(id)s") % m.groupdict()),
    (re.compile(r"replaces #(?P<id>\d+)"), lambda m: _("replaces #%(id)s") % m.groupdict()),
    (re.compile(r"#(?P<id>\d+) was undone"), lambda m: _("#%(id)s was undone") % m.groupdict()),
    (
        re.compile(r"merged a duplicate: (?P<content>.*)", re.S),
        lambda m: _("merged a duplicate: %(content)s") % m.groupdict(),
    ),
    (re.compile(r"forgotten in a chat"), lambda m: _("forgotten in a chat")),
    (re.compile(r"relevance (?P<score>[\d.]+)"), lambda m: _("relevance %(score)s") % m.groupdict()),
    (re.compile(r"\[purged\]"), lambda m: _("[purged]")),
)


@register.filter
def event_note(note: str) -> str:
    for pattern, said in _NOTES:
        match = pattern.fullmatch(note)
        if match:
            return said(match)
    return note
