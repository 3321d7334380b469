from __future__ import annotations

from django import template
from django.utils.safestring import mark_safe

from conversations.markdown import render_markdown

register = template.Library()

@register.filter
def markdown(text: str) -> str:
    return mark_safe(render_markdown(text))  # nh3-sanitised in render_markdown


@register.filter
def few_words(text: str, count: int = 5) -> str:
    words = text.split()
    if len(words) <= 1 and len(text) > 16:  # CJK has no spaces: cut by characters
        return text[:14] + "…"
    return " ".join(words[:count]) + ("…" if len(words) > count else "")
