"""Text handling shared by the write path and recall: CJK segmentation, content keys, token counts,
and a memory quoted as Markdown.

Chinese has no spaces, so Postgres' parser cannot split it: jieba segments it first and the
segmented text is what the tsvector is built from. English words are stemmed by Postgres itself
(the `memoryapp_mixed` text search configuration; see the migration).
"""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from datetime import datetime

import jieba

from memoryapp.lib.scripts import CJK, has_cjk
from memoryapp.models import normalise_content

jieba.setLogLevel(logging.WARNING)

_WORD = re.compile(r"\w", re.UNICODE)
# Function words that would match nearly every memory; English ones are also dropped by the stemmer.
ZH_STOPWORDS = frozenset(
    "我 你 他 她 它 的 了 是 在 和 也 就 都 而 及 与 着 或 一个 没有 我们 你们 什么 吗 呢 吧 啊 么 这 那 有 会 要 对 把 被 让 给 从 到 为 以 上 下 中 里 之 其 很 还".split()
)
EN_STOPWORDS = frozenset(
    "a an the i me my we our you your he she it its they them is am are was were be been do does did "
    "what which who whom when where why how and or but if of to in on at by for with about as from "
    "that this these those there here have has had not no so than then too very can will just".split()
)


def content_key(text: str) -> str:
    """The identity of a memory's wording: equal keys mean the same memory for one user."""
    return hashlib.sha256(normalise_content(text).encode()).hexdigest()[:64]


def segment(text: str) -> list[str]:
    """Words of `text`: jieba's search-mode cut (which also emits sub-words of compounds), no punctuation."""
    text = unicodedata.normalize("NFKC", text)
    if not has_cjk(text):
        return re.findall(r"\w+", text.casefold())
    return [w.casefold() for w in jieba.cut_for_search(text) if _WORD.search(w) and not w.isspace()]


def search_tokens(text: str) -> str:
    """What the tsvector is built from: the segmented words separated by spaces."""
    return " ".join(segment(text))


_MONTHS = ("january february march april may june july august september october november december").split()


def date_words(when: datetime | None) -> str:
    """A date as the words a question would use for it: "may 2023" (month and year, in English)."""
    if when is None:
        return ""
    return f"{_MONTHS[when.month - 1]} {when.year}"


def search_context(context: str, when: datetime | None) -> str:
    """What the context part of the tsvector is built from: the context's words and the date's."""
    return " ".join(part for part in (search_tokens(context) if context else "", date_words(when)) if part)


def query_terms(text: str, limit: int = 32) -> list[str]:
    """Distinct content words of a query, in order, for an OR full-text query."""
    seen: dict[str, None] = {}
    for word in segment(text):
        if word in ZH_STOPWORDS or word in EN_STOPWORDS or len(word) > 40:
            continue
        seen.setdefault(word, None)
    return list(seen)[:limit]


# English plurals that Postgres' stemmer does not bring to their singular's stem ("buses" -> buse, "bus"
# -> bus; "knives" -> knive; "analyses" -> analys, "analysis" -> analysi), and irregular ones.
_IRREGULAR_PLURALS = {
    "children": "child",
    "men": "man",
    "women": "woman",
    "people": "person",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
}
_IRREGULAR_SINGULARS = {singular: plural for plural, singular in _IRREGULAR_PLURALS.items()}


def word_forms(word: str) -> list[str]:
    """The other number of an English word, as a search for it should also find it: "buses" <-> "bus",
    "knives" -> "knife", "analyses" <-> "analysis", "children" <-> "child". Regular plurals ("containers",
    "stories") need nothing: the stemmer gives both numbers one stem. Not "knife" -> "knives": its stem
    ("knive") is that of other words ("lives" / "live")."""
    if not word.isascii() or not word.isalpha() or len(word) < 3:
        return []
    if word in _IRREGULAR_PLURALS:
        return [_IRREGULAR_PLURALS[word]]
    if word in _IRREGULAR_SINGULARS:
        return [_IRREGULAR_SINGULARS[word]]
    if word.endswith("ves"):  # knives, leaves
        return [word[:-3] + "f", word[:-3] + "fe"]
    if word.endswith("ses"):  # buses, analyses
        return [word[:-2], word[:-2] + "is"]
    if word.endswith("is"):  # analysis
        return [word[:-2] + "es"]
    if word.endswith("us"):  # bus, virus, campus
        return [word + "es"]
    return []


def count_tokens(text: str) -> int:
    """Approximate model tokens: ~1 per CJK character, ~1 per 4 other characters (BPE-like)."""
    cjk = len(CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~!])")


def quoted(content: str) -> str:
    """A memory's words as Markdown text, never as markup."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(content.split()))
