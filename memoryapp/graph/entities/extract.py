"""extract_entities(): the Chinese and the English extractors over one text, in the order they were said."""

from __future__ import annotations

from .chinese import extract_chinese
from .chinese_cues import type_of_latin_in_chinese
from .english import extract_english
from .entity import Entity


def extract_entities(text: str, language: str | None = None) -> list[Entity]:
    """People, places, organisations, products and projects named in `text`, each once (the first
    mention), in order. No model: rules, jieba's tags and a small gazetteer. `language` is accepted for
    callers that know it; mixed text needs no hint (each script goes to its own extractor)."""
    chinese = extract_chinese(text)

    def context(start: int, end: int):
        return type_of_latin_in_chinese(text[max(0, start - 6) : start], text[end : end + 6])

    english = extract_english(text, context_type=context)
    covered = [e.span for e in chinese]
    found = chinese + [e for e in english if not any(s < e.span[1] and e.span[0] < t for s, t in covered)]
    found.sort(key=lambda e: e.span)
    seen: set[tuple[str, str]] = set()
    out = []
    for entity in found:
        key = (entity.name.casefold(), entity.type)
        if key not in seen:
            seen.add(key)
            out.append(entity)
    return out
