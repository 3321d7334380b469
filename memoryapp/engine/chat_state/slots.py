"""The task slots a chat keeps in working memory: their keys (stable English identifiers, what programs and
the model's trailer use) and the words the page shows for each, one source for both."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

LABELS = {
    "task": _("Task"),
    "status": _("Status"),
    "destination": _("Destination"),
    "origin": _("Leaving from"),
    "date": _("Date"),
    "dates": _("Dates"),
    "time": _("Time"),
    "budget": _("Budget"),
    "people": _("People"),
    "names": _("Names"),
    "place": _("Place"),
}


def label(key: str) -> str:
    """What the panel calls an entry: the slot's name in the page's language, or the key as written."""
    return str(LABELS[key]) if key in LABELS else key
