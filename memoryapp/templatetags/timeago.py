"""How long ago something happened, as the memory cards say it."""

from __future__ import annotations

from datetime import datetime, timedelta

from django import template
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext as _

register = template.Library()


@register.filter
def ago(value: datetime) -> str:
    """ "just now" under a minute, where timesince alone says "0 minutes"."""
    if timezone.now() - value < timedelta(minutes=1):
        return _("just now")
    return _("%(t)s ago") % {"t": timesince(value)}
