"""A memory kind's icon and label for every page, both taken from `MemoryKind` (one source)."""

from __future__ import annotations

from django import template

from memoryapp.models import MemoryKind

register = template.Library()


def _kind(value: str) -> MemoryKind | None:
    return MemoryKind(value) if value in MemoryKind.values else None


@register.filter
def kind_icon(value: str) -> str:
    kind = _kind(value)
    return kind.icon if kind else "•"


@register.filter
def kind_label(value: str) -> str:
    kind = _kind(value)
    return str(kind.label) if kind else value
