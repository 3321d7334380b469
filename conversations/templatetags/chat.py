from __future__ import annotations

import json
import re
from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from conversations import services
from conversations.markdown import render_markdown
from memoryapp.engine.chat.citations import MARKER, numbers
from memoryapp.engine.chat_state import slots
from memoryapp.models import Memory

register = template.Library()


@register.filter
def markdown(text: str) -> str:
    return mark_safe(render_markdown(text))  # nh3-sanitised in render_markdown


_CODE = re.compile(r"(<pre\b.*?</pre>|<code\b.*?</code>)", re.DOTALL)
_SPACED_MARKER = re.compile(rf"( ?){MARKER.pattern}")


def inline_chip(memory: Memory, number: int) -> str:
    """A memory's chip where the reply marked it (`[number]`); the consumer streams the same one."""
    return render_to_string("conversations/_inline_chip.html", {"memory": memory, "number": number})


@register.simple_tag
def reply_body(message, show_citations: bool = True) -> str:
    """An assistant reply as HTML: each marker of a memory it used becomes that memory's chip, in place
    (gone where citations are hidden); markers inside code stay as written."""
    cited = {c.rank: c.memory for c in message.used_citations} if show_citations else {}

    def chips(marker: re.Match) -> str:
        shown = "".join(inline_chip(cited[n], n) for n in numbers(marker) if n in cited)
        return f"{marker.group(1)}{shown}" if shown else ""  # "curry [1]." reads "curry." without its chip

    parts = _CODE.split(render_markdown(message.content))
    return mark_safe(
        "".join(part if index % 2 else _SPACED_MARKER.sub(chips, part) for index, part in enumerate(parts))
    )


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


@register.filter
def withheld(message) -> str:
    """What the chat tells the user it will not keep of their message (services.withheld_note); "" for none."""
    return services.withheld_note(message)


# The chat's "Keeping in mind" panel (templates/conversations/_chat_state_list.html).


@register.filter
def slot_label(key: str) -> str:
    return slots.label(key)


@register.filter
def is_slot(key: str) -> bool:
    """A slot the app names (its label is translated); any other key is the user's or a program's words."""
    return key in slots.LABELS


_CJK_END = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]$")


def _joined(parts: list[str]) -> str:
    """Parts in a row, with a Chinese comma after Chinese text and a Western one after any other."""
    return "".join(part + ("，" if _CJK_END.search(part) else ", ") for part in parts[:-1]) + (
        parts[-1] if parts else ""
    )


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _joined(
            [f"{key}{'：' if _CJK_END.search(str(key)) else ': '}{_compact(item)}" for key, item in value.items()]
        )
    if isinstance(value, list):
        return _joined([_compact(item) for item in value])
    return json.dumps(value, ensure_ascii=False)  # a number, true or false


@register.filter
def state_value(value: Any) -> str:
    """An entry's value as the panel shows it: a string as is, other JSON compactly ("from: Berlin, to: Rome")."""
    return _compact(value)


@register.filter
def state_text(value: Any) -> str:
    """An entry's value as its edit box holds it, so that saving it unchanged keeps it: a string as is unless
    it would read as other JSON ("42"), then quoted; other JSON as JSON."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            return value
    return json.dumps(value, ensure_ascii=False)
