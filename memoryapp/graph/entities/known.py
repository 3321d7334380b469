"""The gazetteer as lookups: a name (case folded, NFKC) -> the types it may have, and the longest name in
words and characters, for the extractors' longest-match scans."""

from __future__ import annotations

import unicodedata
from functools import cache

from memoryapp.lib.scripts import HAN

from . import gazetteer
from .entity import EntityType

# Names that are also ordinary English words: never taken in lower case unless a verb of use says so,
# nor as the first word of a sentence.
COMMON_WORDS = frozenset(
    "teams word pages numbers things monday bear signal keep switch echo line sea square block target go arch "
    "spring atom office mint calm pocket medium threads linear rider surface galaxy pixel unity spark flutter "
    "swift rust ruby dart phoenix oracle chase marcus ally wise slack notion discord zoom miro canva sketch "
    "excel claude copilot cursor gemini booking messenger telegram alexa siri kindle apple amazon meta "
    "grab sea line target boots pret georgia washington nice bath reading outlook unreal things".split()
)


def fold(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


@cache
def known() -> dict[str, tuple[EntityType, ...]]:
    """Folded name -> its possible types, the usual one first."""
    table: dict[str, list[EntityType]] = {}

    def add(names, kind):
        for name in names:
            table.setdefault(fold(name), [])
            if kind not in table[fold(name)]:
                table[fold(name)].append(kind)

    add(gazetteer.ORGANIZATIONS, EntityType.ORGANIZATION)
    add(gazetteer.PRODUCTS, EntityType.PRODUCT)
    add(gazetteer.PLACES, EntityType.PLACE)
    for name in gazetteer.COMPANY_OR_PRODUCT:  # the company first: "at Netflix" is the commoner memory
        types = table.setdefault(fold(name), [])
        for kind in (EntityType.PRODUCT, EntityType.ORGANIZATION):
            if kind not in types:
                types.append(kind)
    return {name: tuple(types) for name, types in table.items()}


@cache
def original_case() -> dict[str, str]:
    """Folded name -> the gazetteer's spelling (to tell "dbt" written as listed from "Go" at a sentence start)."""
    names = gazetteer.ORGANIZATIONS + gazetteer.PRODUCTS + gazetteer.PLACES
    return {fold(n): n for n in names}


@cache
def longest() -> tuple[int, int]:
    """(most words in a Latin name, most characters in a Chinese name)."""
    words = max(len(n.split()) for n in known() if not HAN.search(n))
    chars = max(len(n) for n in known() if HAN.search(n))
    return words, chars


@cache
def first_words() -> frozenset[str]:
    """The first word, case folded, of every Latin name the gazetteer knows (a quick "could one start here")."""
    return frozenset(name.split()[0] for name in known() if name.split() and not HAN.search(name))


def is_first_name(word: str) -> bool:
    return word in gazetteer.FIRST_NAMES
