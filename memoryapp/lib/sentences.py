"""Where sentences and clauses end, in English and Chinese: the one splitter the whole tree uses.

Sentences come from pysbd (rule-based sentence boundary disambiguation), which knows abbreviations
("U.K.", "Dr.", "etc."), times ("5:15"), decimals, versions and URLs, and Chinese full stops; lines are
split first, since a chat message's line break ends a thought, and a semicolon ends a sentence too (the
callers join one that leans back, "…next month; my lease ends then", to the one before). Clauses end after a comma, colon or
semicolon, but an ASCII one only where a space follows ("5:15", "12,500" and "https://" stay whole) and
never inside brackets or quotes. Every piece is a span of the text as written: nothing is rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import pysbd

from .scripts import HAN_RANGES
from .values import values_in

_LINE = re.compile(r"[^\n]+")
# A semicolon ends a sentence where the user opens a new statement about themselves ("我住在上海；我打算…");
# between items of a list ("Mia does the dishes; Leo feeds the cat") it is a clause mark.
_SEMICOLON = re.compile(r"(?<=[;；])(?=\s*(?:I\b|I'|[Mm]y\b|[Ww]e\b|[Oo]ur\b|我))")
# pysbd sometimes ends a sentence at an abbreviation's dot; the next piece carries on the sentence when it
# opens in lower case or with a digit ("my M.Sc. before that", "ch. 10"), with a Chinese character after
# initials ("J.K.罗琳"), or follows a title, which never ends one ("Mt. Kilimanjaro", "Dr. Okafor").
_ENDS_SHORT = re.compile(r"(?<![A-Za-z])(?:[A-Za-z]{1,4}\.|(?:[A-Za-z]\.){2,})$")
_ENDS_TITLE = re.compile(r"(?<![A-Za-z])(?:Dr|Mr|Mrs|Ms|Mx|Mt|St|Prof|Sr|Jr|No|Nr|vs)\.$")
_CARRIES_ON = re.compile(r"^[a-z0-9]")
_ENDS_INITIALS = re.compile(r"(?<![A-Za-z])(?:[A-Za-z]\.){2,}$|(?<![A-Za-z])[A-Z]\.$")  # "J.K.", "U.S.", "P."
_HAN_NEXT = re.compile(f"^[{HAN_RANGES}]")
_CLOSES = re.compile(r"^[’”」』）)\]]")  # a quotation's or bracket's end: "‘…早晚要哭。’去年…"
_INSIDE_URL = re.compile(r"(?:https?://|www\.)\S*[?!.]$")  # "…/notice?class=3-2"
_CLAUSE_MARKS = ",;:，；：、"
_ASCII_CLAUSE_MARKS = ",;:"
_OPENERS, _CLOSERS = '([{（【「『“‘"', ')]}）】」』”’"'
# The dot of an abbreviation that can end a sentence ("I moved to the U.K.", "at 9 a.m.", "Pratchett,
# etc."): a trimmed memory keeps it. Titles ("Dr.") never end one; months ("May.") end as words do.
_ABBREVIATED = re.compile(r"(?:\b[A-Za-z]\.){2,}$|\b(?:etc|Inc|Ltd|Co|Corp|Jr|Sr|vs)\.$")


@dataclass(frozen=True)
class Span:
    """A piece of a text: `text[start:end]`, surrounding whitespace excluded."""

    start: int
    end: int
    text: str


def _stripped(text: str, start: int, end: int) -> Span | None:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    piece = piece.strip()
    return Span(start + lead, start + lead + len(piece), piece) if piece else None


def sentence_spans(text: str) -> list[Span]:
    """The sentences of `text`, each with where it sits in it."""
    return list(_sentence_spans(text or ""))


@lru_cache(maxsize=4096)  # a chat turn asks this of the same message several times (questions, relevance)
def _sentence_spans(text: str) -> tuple[Span, ...]:
    spans: list[Span] = []
    for line in _LINE.finditer(text or ""):
        # A segmenter per call: pysbd keeps the text being split on the instance (not thread-safe).
        segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)
        offset, said = line.start(), line.group()
        # Where pysbd's sentences start, found in order (a repeated sentence is found after the one before);
        # each runs to the next start, so no character is ever left out.
        starts, cursor = [0], 0
        for piece in segmenter.segment(said):
            at = said.find(piece.sent.strip(), cursor) if piece.sent.strip() else -1
            if at > starts[-1]:
                starts.append(at)
            cursor = max(cursor, at + len(piece.sent.strip())) if at >= 0 else cursor
        chunks = [(start, said[start:end]) for start, end in zip(starts, [*starts[1:], len(said)])]
        for piece in _rejoined(chunks):
            start = offset + piece[0]
            for part in _SEMICOLON.split(piece[1]):
                span = _stripped(text, start, start + len(part))
                start += len(part)
                if span is not None:
                    spans.append(span)
    return tuple(spans)


def _rejoined(pieces: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Sentences as (start, text), a piece that carries on the one before joined to it."""
    out: list[tuple[int, str]] = []
    for start, piece in pieces:
        if out:
            before, text = out[-1]
            head = text.rstrip()
            if (
                _ENDS_TITLE.search(head)
                or _CLOSES.match(piece)
                or (text == head and _INSIDE_URL.search(head))
                or (_ENDS_SHORT.search(head) and _CARRIES_ON.match(piece))
                or (_ENDS_INITIALS.search(head) and _HAN_NEXT.match(piece))
            ):
                out[-1] = (before, text + piece)
                continue
        out.append((start, piece))
    return out


def sentences(text: str) -> list[str]:
    return [span.text for span in sentence_spans(text)]


def clause_spans(sentence: str) -> list[Span]:
    """The clauses of one sentence, each with where it sits in it; the marks stay with their clause."""
    spans: list[Span] = []
    depth, start = 0, 0
    for i, char in enumerate(sentence):
        if char in _OPENERS and not (char == '"' and depth):
            depth += 1
        elif char in _CLOSERS and depth:
            depth -= 1
        elif depth == 0 and char in _CLAUSE_MARKS:
            if char in _ASCII_CLAUSE_MARKS and i + 1 < len(sentence) and not sentence[i + 1].isspace():
                continue
            span = _stripped(sentence, start, i + 1)
            if span is not None:
                spans.append(span)
            start = i + 1
    span = _stripped(sentence, start, len(sentence))
    if span is not None:
        spans.append(span)
    return spans


def clauses(sentence: str) -> list[str]:
    return [span.text for span in clause_spans(sentence)]


def pieces(text: str) -> list[str]:
    """Every clause of every sentence: where a question may hide inside a longer message."""
    return [clause for sentence in sentences(text) for clause in clauses(sentence)]


def ends_abbreviated(text: str) -> bool:
    """Whether the final dot of `text` belongs to an abbreviation ("U.K.", "etc.", "Dr."), not the sentence."""
    return bool(_ABBREVIATED.search(text))


# Words that open a remark and say nothing of it: a memory starts after them.
_FILLER = re.compile(
    r"^(?:(?:by the way|btw|fyi|oh|anyway|ok so|so yeah)[,:]?\s+|(?:顺便说一下|顺便说下|顺便提一下|对了|话说)[，,：:]?\s*)",
    re.I,
)


def trimmed(sentence: str) -> str:
    """A sentence as a memory keeps it: leading filler ("By the way,", "顺便说一下，") and whitespace
    dropped, a final full stop or semicolon too (the dot of an abbreviation stays)."""
    text = _FILLER.sub("", " ".join(sentence.split()))
    while text and text[-1] in ";；。." and not (text[-1] == "." and ends_abbreviated(text)):
        text = text[:-1].rstrip()
    return text


MAX_SENTENCE_CHARS = 500  # longer is a pasted blob, not something to remember

# A sentence that leans on the one before by a pronoun or "there"/"then" ("She works as a nurse there",
# "my lease ends then", "那边房租便宜"): kept with it, so the memory names whom, where and when.
POINTS_BACK = re.compile(
    r"\b(?:them|it|this|these|those|she|he|her|him|they|there|then)\b|^\W*that\b"
    r"|这个|那个|这些|那些|它们?|这样|她|他|那边|那里|那儿|那时",
    re.I,
)


# A sentence opening on a pronoun or "that"/"there", whose antecedent must come before it.
_OPENS_POINTING_BACK = re.compile(
    r"^\W*(?:they|them|it|this|that|these|those|she|he|her|him|there|then)\b|^\W*(?:这|那|它|她|他)", re.I
)


# A sentence that is a question as a whole: it opens on a question word or an auxiliary ("Can I…?", "Any
# tips?", "Hmm, what would you do?"), is a word or two ("Ideas?"), or is a Chinese question of one clause
# ("下午能喝咖啡吗？"). "I moved to Denver, any tips for a dentist there?" is not: its first clause is news.
_QUESTION_OPENS = re.compile(
    r"^\W*(?:(?:hmm|ok|okay|so|and|also|btw|oh|well|right)\W+)?"
    r"(?:what|what's|how|why|where|when|who|which|can|could|would|should|shall|may|do|does|did|is|are|was|were"
    r"|will|any|anything|anyone|is there|are there)\b",
    re.I,
)


def _a_question(sentence: str) -> bool:
    if not sentence.rstrip().endswith(("?", "？")):
        return False
    if _QUESTION_OPENS.search(sentence) or len(sentence.split()) <= 2 and sentence.isascii():
        return True
    return not sentence.isascii() and not re.search(r"[，,；;]", sentence)


def _names_what_follows(question: str, after: list[Span]) -> bool:
    """The question names what the next sentence points back to ("你知道 Obsidian 吗？我现在所有笔记都用它记"):
    kept, for the name."""
    names = [value for value in values_in(question) if not _QUESTION_OPENS.search(value)]
    return bool(after) and bool(POINTS_BACK.search(after[0].text)) and bool(names)


def without_questions(text: str) -> str:
    """`text` without its questions: what is asked is not something to remember ("Can I make it less spicy?
    It has been raining all week" keeps the second sentence). Empty when nothing else is left, or when what is
    left opens by pointing back past a question cut out ("What would you do? They like tea": who?)."""
    spans = sentence_spans(text)
    kept = [
        span
        for n, span in enumerate(spans)
        if not _a_question(span.text) or _names_what_follows(span.text, spans[n + 1 :])
    ]
    if len(kept) == len(spans):
        return text
    if not kept or _OPENS_POINTING_BACK.search(kept[0].text):
        return ""
    joined = kept[0].text
    for span in kept[1:]:
        joined += ("" if _HAN_NEXT.match(span.text) and not joined[-1:].isascii() else " ") + span.text
    return joined
