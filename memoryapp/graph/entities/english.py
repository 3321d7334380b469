"""Names in Latin script: known names (the gazetteer, longest first), then runs of capitalised words
("Oak Park Elementary", "St. Mary's Hospital", "University of Edinburgh"), each typed by its own words and
the words around it (english_cues.py). A capitalised first word of a sentence counts only when it is a
known name or its next words say it is a person ("Kenji is my ...", "Jonas and I")."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memoryapp.lib.scripts import HAN

from . import english_cues as cues
from .entity import Entity, EntityType
from .known import COMMON_WORDS, first_words, fold, is_first_name, known, longest, original_case

_TOKEN = re.compile(r"[^\W_](?:[\w&+#'’.\-]*[\w+#])?", re.UNICODE)
_LATIN = re.compile(r"[A-Za-z]")
_SENTENCE_END = re.compile(r"[.!?\n;:。！？；：]")
_CLAUSE_END = re.compile(r"[.!?\n;:,()。！？；：，、]")
CONNECTORS = frozenset("of de la del van von du &".split())
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th|s)$")
_POSSESSIVE = re.compile(r"(?:'s|’s)$")
# A sentence's first word that reads as an activity or an idea ("Writing is my passion", "Nature is the
# best"), not as a name, whatever follows it.
_ABSTRACT = re.compile(r"(?:ing|ity|ance|ence|ness|tion|sion|ment|ship|ism|ure)$")
_CONTRACTION = re.compile(r"['’](?:ve|re|ll|d|m|t)$", re.IGNORECASE)

# Given a span's (start, end) in the text, a type from the Chinese around it (chinese_cues), or None.
ContextType = Callable[[int, int], "EntityType | None"]


@dataclass
class Token:
    text: str
    start: int
    end: int
    initial: bool  # first word of a sentence, not after Chinese
    low: str = ""  # case folded, without a possessive

    def __post_init__(self) -> None:
        self.low = _POSSESSIVE.sub("", self.text).casefold()


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    for match in _TOKEN.finditer(text):
        word = match.group()
        if HAN.search(word):  # a Chinese run: the Chinese extractor's
            continue
        before = text[tokens[-1].end if tokens else 0 : match.start()]
        after_abbreviation = bool(tokens) and tokens[-1].low in cues.ABBREVIATIONS and before.strip() == "."
        initial = (not tokens and not HAN.search(before)) or (
            bool(_SENTENCE_END.search(before)) and not after_abbreviation and not HAN.search(before)
        )
        tokens.append(Token(word, match.start(), match.end(), initial))
    return tokens


def _joined(text: str, left: Token, right: Token) -> bool:
    """Two words of one name: only spaces between them, or the dot of "Dr." / "St."."""
    gap = text[left.end : right.start]
    return gap.strip() == "" or (gap.strip() == "." and left.low in cues.ABBREVIATIONS)


def _name_like(token: Token) -> bool:
    word = token.text
    if not _LATIN.search(word) or token.low in cues.NOT_NAMES or _ORDINAL.match(token.low) or _CONTRACTION.search(word):
        return False
    return (
        word[0].isupper()
        or any(c.isupper() for c in word[1:])
        or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word))
    )


def _words_before(tokens: list[Token], start: int, text: str, count: int = 4) -> list[str]:
    """The words before token `start` in its clause, nearest first."""
    out: list[str] = []
    for i in range(start - 1, max(start - 1 - count, -1), -1):
        if _CLAUSE_END.search(text[tokens[i].end : tokens[i + 1].start]) or HAN.search(
            text[tokens[i].end : tokens[i + 1].start]
        ):
            break
        out.append(tokens[i].low)
    return out


def _words_after(tokens: list[Token], end: int, text: str, count: int = 3) -> list[str]:
    out: list[str] = []
    for i in range(end, min(end + count, len(tokens))):
        gap = text[tokens[i - 1].end : tokens[i].start]
        if HAN.search(gap) or (_CLAUSE_END.search(gap) and i > end):
            break
        out.append(("," if "," in gap else "") + tokens[i].low)
    return out


def _known_at(tokens: list[Token], i: int, text: str) -> tuple[int, tuple[EntityType, ...]] | None:
    """The longest known name starting at token i: (end token, its types)."""
    if tokens[i].low not in first_words():
        return None
    most_words, _ = longest()
    for j in range(min(len(tokens), i + most_words), i, -1):
        if any(not _joined(text, tokens[k], tokens[k + 1]) for k in range(i, j - 1)):
            continue
        name = fold(text[tokens[i].start : tokens[j - 1].end])
        name = _POSSESSIVE.sub("", name)
        if name in known():
            return j, known()[name]
    return None


def _known_accepted(tokens: list[Token], i: int, j: int, text: str, tool_clause: bool) -> bool:
    """A known name as written: capitalised, or spelt as listed ("dbt"); a name that is also a word
    ("slack", "Go") in lower case or at a sentence start only after a verb of use."""
    written = text[tokens[i].start : tokens[j - 1].end]
    name = fold(_POSSESSIVE.sub("", written))
    listed = original_case().get(name, written)
    common = name in COMMON_WORDS
    if listed.isupper() and written != listed:  # "us" is not the US, "it" not IT
        return False
    if written == listed and not (tokens[i].initial and common):
        return True
    if written[0].isupper() and not tokens[i].initial:
        return not (common and len(name) <= 2 and written != listed)  # "Go" mid-sentence is fine, "US" too
    if tokens[i].initial:
        return not common
    if not common:
        return True
    previous = tokens[i - 1].low if i else ""
    return len(name) > 2 and (previous in cues.TOOL_VERBS or (tool_clause and previous in ("and", "or")))


def _person_cue_after(after: list[str]) -> bool:
    if not after:
        return False
    first = after[0]
    if first.startswith(","):  # "Olga, my Russian tutor"
        return len(after) > 1 and after[1] in ("my", "our")
    if first == "and":
        return len(after) > 1 and (after[1] == "i" or after[1][:1].isalpha())
    if first in ("is", "was"):  # "Kenji is the best engineer", not "Nature is so inspiring"
        return len(after) > 1 and after[1] in ("my", "our", "the", "a", "an", "his", "her", "their")
    return first in cues.PERSON_AFTER


def _choose(types: tuple[EntityType, ...], before: list[str], tool_clause: bool = False) -> EntityType:
    """Among a known name's types, the one its nearest cue word points to."""
    if len(types) == 1:
        return types[0]
    if tool_clause and EntityType.PRODUCT in types:
        return EntityType.PRODUCT
    for word in before:
        for kind, words in (
            (EntityType.ORGANIZATION, cues.ORG_BEFORE),
            (EntityType.PLACE, cues.PLACE_BEFORE),
            (EntityType.PRODUCT, cues.PRODUCT_BEFORE),
        ):
            if word in words and kind in types:
                return kind
    return types[0]


def _type_unknown(words: list[str], before: list[str], after: list[str]) -> EntityType:
    """A name the gazetteer lacks: its own last word, a model number, then the nearest cue word before it."""
    by_suffix = cues.type_by_suffix(words[-1], words[0])
    if by_suffix:
        return by_suffix
    if any(c.isdigit() for c in "".join(words)):
        return EntityType.PRODUCT
    if before and before[0] in ("called", "named"):
        previous = before[1] if len(before) > 1 else ""
        if previous in cues.CALLED_PROJECT:
            return EntityType.PROJECT
        if previous in cues.CALLED_ORG:
            return EntityType.ORGANIZATION
        return EntityType.PERSON
    if before and before[0] in cues.RELATIONS or _person_cue_after(after) or is_first_name(words[0]):
        return EntityType.PERSON
    if len(before) > 1 and before[0] in ("project", "blog") and before[1] in ("side", "my", "pet", "our"):
        return EntityType.PROJECT
    for word in before:
        if word in cues.PLACE_BEFORE and word not in ("from", "on", "with"):
            return EntityType.PLACE
        if word in cues.ORG_BEFORE:
            return EntityType.ORGANIZATION
        if word in cues.PRODUCT_BEFORE:
            return EntityType.PRODUCT
        if word == "from":
            return EntityType.PLACE
        if word == "with":
            return EntityType.PERSON
    return EntityType.PERSON if len(words) == 1 else EntityType.ORGANIZATION


def _shouting(text: str) -> bool:
    """Mostly capitals ("I LIVE IN BERLIN"): capitals say nothing, only known names count."""
    words = [w for w in re.findall(r"[A-Za-z]{3,}", text)]
    return len(words) >= 4 and sum(w.isupper() for w in words) >= 0.75 * len(words)


def extract_english(text: str, context_type: ContextType | None = None) -> list[Entity]:
    if _shouting(text) and len(text.lower()) == len(text):
        lowered = text.lower()
        return [Entity(text[e.span[0] : e.span[1]], e.type, e.span) for e in extract_english(lowered, context_type)]
    tokens = tokenize(text)
    found: list[Entity] = []
    tool_clause = False  # a verb of use earlier in this clause ("we use slack at work and discord")
    i = 0
    while i < len(tokens):
        gap = text[tokens[i - 1].end : tokens[i].start] if i else ""
        if HAN.search(gap) or (_CLAUSE_END.search(gap) and "," not in gap):
            tool_clause = False
        if i and tokens[i - 1].low in cues.TOOL_VERBS:
            tool_clause = True
        if not (_name_like(tokens[i]) or tokens[i].low in first_words()):
            i += 1
            continue
        entity, i = _entity_at(tokens, i, text, _words_before(tokens, i, text), tool_clause, context_type)
        if entity is not None:
            found.append(entity)
    return found


def _entity_at(
    tokens: list[Token], i: int, text: str, before: list[str], tool_clause: bool, context_type: ContextType | None
) -> tuple[Entity | None, int]:
    """The entity starting at token i, if any, and the token after it."""
    # "my side project Breadcrumb" (lower case: "Project Falcon" is handled as a name below)
    project_before = bool(before) and before[0] in cues.PROJECT_BEFORE and not tokens[i - 1].text[0].isupper()
    hit = _known_at(tokens, i, text)
    if hit and _known_accepted(tokens, i, hit[0], text, tool_clause):
        end, types = hit
        kind = _choose(types, before, tool_clause)
        extended = _extend(tokens, end, text, head=types)
        if extended > end:
            words = [t.text for t in tokens[i:extended]]
            kind = cues.type_by_suffix(words[-1], words[0]) or EntityType.PRODUCT
            end = extended
        after = _words_after(tokens, end, text)
        if after and after[0] in cues.PROJECT_AFTER_STRONG or project_before:
            kind = EntityType.PROJECT
        elif context_type and kind in (EntityType.ORGANIZATION, EntityType.PRODUCT) and len(types) > 1:
            kind = context_type(tokens[i].start, tokens[end - 1].end) or kind
        return _entity(tokens, i, end, kind, text), end
    if not _name_like(tokens[i]):
        return None, i + 1
    if tokens[i].low in cues.STARTERS:  # "The", "Yeah": the name, if any, starts at the next word
        return None, i + 1
    if (
        tokens[i].text == "Project"
        and i + 1 < len(tokens)
        and _name_like(tokens[i + 1])
        and _joined(text, tokens[i], tokens[i + 1])
    ):
        end = _extend(tokens, i + 2, text)
        return _entity(tokens, i + 1, end, EntityType.PROJECT, text), end
    end = _extend(tokens, i + 1, text)
    words = [_POSSESSIVE.sub("", t.text).rstrip(".") for t in tokens[i:end]]
    after = _words_after(tokens, end, text)
    if end == i + 1 and (tokens[i].low in cues.TITLES or tokens[i].low in cues.ABBREVIATIONS):
        return None, end  # "Mr. and Mrs. Smith": a title with no name after it
    titled = tokens[i].low in cues.TITLES and end > i + 1
    if tokens[i].initial and not titled:
        if end > i + 1 and is_first_name(words[1]) and not is_first_name(words[0]):
            return None, i + 1  # "Woah Joanna", "Remember Jon": the name starts at the second word
        if not (
            is_first_name(words[0]) or end > i + 1 or (_person_cue_after(after) and not _ABSTRACT.search(tokens[i].low))
        ):
            return None, end
    if titled:
        kind = EntityType.PERSON
    elif project_before or (
        after
        and after[0] in cues.PROJECT_AFTER_STRONG | cues.PROJECT_AFTER_WEAK
        and not cues.type_by_suffix(words[-1], words[0])
    ):
        kind = EntityType.PROJECT
    else:
        kind = (context_type(tokens[i].start, tokens[end - 1].end) if context_type else None) or _type_unknown(
            words, before, after
        )
    return _entity(tokens, i, end, kind, text), end


def _extend(tokens: list[Token], end: int, text: str, head: tuple[EntityType, ...] = ()) -> int:
    """Past `end`, the words that still belong to the name: capitalised words, "of"/"de" between two of
    them, and a product's model ("13 mini", "X1 Carbon", "IV"). After a known name (`head`, its types),
    only a model, a place's or an organisation's suffix ("London Bridge", "Brooklyn Conservatory"), or
    after a maker's name the product's ("Toyota Prius")."""
    coded = False
    while end < len(tokens) and _joined(text, tokens[end - 1], tokens[end]):
        token = tokens[end]
        if (
            token.low in cues.MODEL_WORDS
            or token.text.isdigit()
            or (any(c.isdigit() for c in token.text) and len(token.text) <= 6)
        ):
            end += 1
            coded = True
        elif head and not coded and EntityType.ORGANIZATION not in head and not cues.type_by_suffix(token.text, ""):
            break
        elif _name_like(token) and token.low not in cues.STARTERS and token.low not in cues.NOT_NAMES:
            end += 1
        elif (
            token.low in CONNECTORS
            and end + 1 < len(tokens)
            and _joined(text, token, tokens[end + 1])
            and _name_like(tokens[end + 1])
        ):
            end += 2
        else:
            break
    return end


def _entity(tokens: list[Token], i: int, end: int, kind: EntityType, text: str) -> Entity:
    start, stop = tokens[i].start, tokens[end - 1].end
    name = text[start:stop]
    trimmed = _POSSESSIVE.sub("", name)
    return Entity(trimmed, kind, (start, start + len(trimmed)))
