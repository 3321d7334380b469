from __future__ import annotations

from django import template
from django.utils.safestring import mark_safe

from conversations import services
from conversations.markdown import render_markdown
from memoryapp.models import Memory

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


@register.simple_tag
def command_memories(message) -> list[Memory]:
    """The memories a reply to a memory command forgot or asks about (services.command_memories); the
    websocket's frames come with them loaded, since a consumer renders where no query may run."""
    loaded = getattr(message, "commanded_memories", None)
    return loaded if loaded is not None else services.command_memories(message)
