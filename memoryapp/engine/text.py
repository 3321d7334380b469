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


# Words that point back at the previous turn, in a message too short to stand alone.
POINTING_EN = frozenset(
    "it that this those these them one ones first second third last former latter option options "
    "instead either both other same then also".split()
)
POINTING_ZH = (
    "那就",
    "那么",
    "那个",
    "这个",
    "那些",
    "这些",
    "第一",
    "第二",
    "第三",
    "最后",
    "方案",
    "选项",
    "还是",
    "同样",
    "它",
    "那",
    "这",
    "呢",
)
SHORT_MESSAGE_TERMS = 4  # content words; a message with more stands on its own

# The user speaking of themselves: in bench.chat's dev turns, 76 % of those that need a memory do,
# against 22 % of general questions.
FIRST_PERSON_EN = frozenset("i i'm im i've i'd i'll me my mine myself we we're our ours us".split())
FIRST_PERSON_ZH = ("我", "咱", "俺", "本人")

# People outside the user's household, whom a message may ask on behalf of ("my neighbour wants to start
# running", "我表妹高考完想选专业"). Household family is not here: a child's school or a partner's diet
# is the user's life, and in their memories.
OTHER_PEOPLE_EN = (
    r"neighbou?rs?|friends?|buddy|buddies|pals?|colleagues?|co-?workers?|boss|manager|classmates?|labmates?"
    r"|room-?mates?|flatmates?|teammates?|clients?|customers?|students?|cousins?|acquaintances?|guy|someone"
    r"|somebody|people on my team|a lady|a woman|a man"
)
OTHER_PEOPLE_ZH = (
    r"朋友|好友|闺蜜|哥们|邻居|同事|同学|室友|舍友|老板|领导|客户|学生|表姐|表妹|表哥|表弟|堂姐|堂妹|堂哥|堂弟"
    r"|亲戚|熟人|网友|别人|有人|师兄|师姐|师弟|师妹"
)
_OTHER_PERSON = re.compile(
    rf"\b(?:{OTHER_PEOPLE_EN})\b|(?:{OTHER_PEOPLE_ZH})|\basking for\b|\bon behalf of\b|替\S{{1,4}}问|帮\S{{1,4}}问",
    re.I,
)
# "my friend", "我朋友", "我的同事": the user's words for the other person, not the user's own part.
_THEIR_NAME = re.compile(
    rf"\b(?:my|our|a|an)\s+(?:\w+\s+)?(?:{OTHER_PEOPLE_EN})\b|\b(?:on|in|at|from) (?:my|our) (?:team|class|floor|street|building|office|lab)\b"
    rf"|\basking for (?:my|our|a)\b|(?:我的?|我们的?|帮我?|替我?)(?:\S{{0,3}})?(?:{OTHER_PEOPLE_ZH})",
    re.I,
)


def names_someone_else(message: str) -> bool:
    """The message speaks of someone outside the user's household (a friend, a colleague, 表妹...)."""
    return _OTHER_PERSON.search(unicodedata.normalize("NFKC", message)) is not None


def user_has_a_part(message: str) -> bool:
    """Beside the other people it names, the message still speaks of the user ("my friend and I…",
    "我同事约我…"): the words that name the others are taken out before asking."""
    return speaks_of_user(_THEIR_NAME.sub(" ", unicodedata.normalize("NFKC", message)))


def plain(text: str) -> str:
    """Case-folded, NFKC, punctuation and symbols (emoji included) as spaces."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    return "".join(ch if ch.isalnum() or ch in " '" else " " for ch in text)


def content_words(message: str) -> list[str]:
    """The message's words less function words (jieba's precise cut: one word per word, not its parts)."""
    return [
        w
        for w in (w.strip() for w in jieba.cut(plain(message)))
        if w and w not in EN_STOPWORDS and w not in ZH_STOPWORDS and w != "'"
    ]


def leans_on_previous(message: str) -> bool:
    """A short message that points back ("ok, go with the first option", "那就按第二个方案", "what about
    Saturday then?") or has almost no content of its own."""
    terms = content_words(message)
    if len(terms) <= 1:
        return True
    if len(terms) > SHORT_MESSAGE_TERMS:
        return False
    words = set(re.findall(r"[a-z']+", plain(message)))
    return bool(words & POINTING_EN) or any(marker in message for marker in POINTING_ZH)


def speaks_of_user(text: str) -> bool:
    text = unicodedata.normalize("NFKC", text).replace("’", "'")
    # "US" in capitals is the country, not "us".
    words = {w.casefold() for w in re.findall(r"[A-Za-z']+", text) if w != "US"}
    return bool(words & FIRST_PERSON_EN) or any(marker in text for marker in FIRST_PERSON_ZH)
