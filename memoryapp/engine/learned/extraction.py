"""Extraction with no language model, by the trained model `extraction` (bench/train/extraction.py): the
user's sentences are split as the rules split them, a question's context clauses are kept apart from the
question ("I'm vegetarian" in "I'm vegetarian, what should I cook tonight?"), and each piece is scored
on its embedding plus a few cheap features. A piece kept is stored in the user's own words; a kept
sentence that only says more about the one before it joins that memory (`_merged`).

Questions stay a rule (a piece shaped like a question is never a memory), and `contains_sensitive` still
drops secrets before the model is asked: a secret anywhere in a sentence drops every piece of it.
The sentence split, the joining of a sentence that points back and the trimming are the rules'
(memoryapp/lib/sentences.py), so both defaults store the same words for the same sentence. The caller
(engine/llm/candidates.py) turns what is kept into candidates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from memoryapp.lib.scripts import HAN, LATIN
from memoryapp.lib.sentences import MAX_SENTENCE_CHARS, POINTS_BACK, clauses, sentence_spans, trimmed
from memoryapp.lib.values import values_in
from memoryapp.models import MemoryKind, normalise_content

from ..questions import REQUEST_EN, REQUEST_ZH, is_question
from ..sensitive import contains_sensitive
from .model import TrainedModel

MODEL_NAME = "extraction"
FEATURES = ("embedding", "first_person", "question_shape", "log_length", "previous_asks", "cjk_share")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|my|me|mine|we|we're|our|us)\b|我|咱|俺", re.I)
# A sentence that opens on the user ("I live in Berlin", "Also I hate cilantro", "我住在上海") states
# something of its own; one that does not ("No sugar, no milk") usually says more about the one before.
_STARTS_WITH_SELF = re.compile(r"^\W*(?:[a-z]+[\s,]+){0,2}(?:i|i'm|im|i've|i'd|my|we|we're|our)\b|^\W*.{0,3}我", re.I)
# A sentence that opens by pointing back ("She's vegan", "So pescatarian now", "都是橘猫", "不过这东西…",
# "对，考408") says more about the one before, whatever kind the model gives each half; one that sets up
# what follows ("Quick thing about my sister Emma", "跟你说下我女儿的情况") is the first half of one thought.
_CONTINUES = re.compile(
    r"^\W*(?:so|and|but|which|it|it's|its|this|that|these|they|they're|she|she's|he|he's|both"
    r"|(?:learned|learnt|found|figured) (?:that|this|it) out|(?:learned|learnt) (?:that|this|it) the hard way)\b"
    r"|^\W*(?:都|对[，,]|很|挺|不过|但是?|她|他|它|这|所以|而且|并且)",
    re.I,
)
# A clause with no subject of its own says more about the one before ("…, not 4.x", "…, all bought second-hand").
_DANGLES = re.compile(
    r"^\W*(?:[a-z]+ing|not|no|only|size|etc|e\.g|i\.e|including|except|especially|mostly|plus"
    r"|both|all|each|mainly|usually|always|never)\b",
    re.I,
)
_SETS_UP = re.compile(
    r"\b(?:thing|something|a word|update|note) about\b|let me tell you about|跟你说(?:一?下|一声)"
    r"|说(?:一?下).{0,12}的(?:情况|事)",
    re.I,
)


@dataclass(frozen=True)
class Piece:
    """One scored unit: the text said, the assistant turn before its message (context), and where it
    sits: its message, its sentence, and whether it is the whole sentence or one of its clauses."""

    text: str
    previous: str = ""
    message: int = 0
    sentence: int = 0
    whole: bool = True
    said: str = ""  # the whole sentence (a secret anywhere in it drops every piece of it)
    before: str = ""  # the earlier sentence joined in front of it, when it points back


def clauses_of(sentence: str) -> list[str]:
    return clauses(sentence)


def pieces_of(sentence: str) -> list[tuple[str, bool]]:
    """What is scored of a sentence: the whole unless it asks something, and, when it has several
    clauses, each clause that asks nothing (a memory said in passing before a question or a request)."""
    sentence = sentence.strip()
    out = [] if is_question(sentence) else [(sentence, True)]
    clauses = clauses_of(sentence)
    if len(clauses) > 1:
        out += [(c, False) for c in clauses if not is_question(c)]
    return out


def user_sentences(messages: list[dict]) -> Iterator[tuple[int, str, str, str]]:
    """(message index, assistant turn before it, sentence, the sentence joined in front of it or ""): the
    user's sentences as the rules split and join them (one that points back, "run them through
    proxy-env", is joined to the one before: in one message as written, across two with a space)."""
    previous, before, before_start = "", "", None
    for n, message in enumerate(messages):
        content = str(message.get("content") or "")
        if message.get("role") == "assistant":
            previous = content
            continue
        if message.get("role") != "user":
            continue
        for span in sentence_spans(content):
            sentence, said, joined = span.text, span.text, ""
            if before and POINTS_BACK.search(sentence) and len(before) + len(sentence) <= MAX_SENTENCE_CHARS:
                said = content[before_start : span.end] if before_start is not None else _glued(before, sentence)
                joined = before
            before, before_start = sentence, span.start
            yield n, previous, said, joined
        previous, before_start = "", None


def pieces(messages: list[dict]) -> Iterator[Piece]:
    for index, (n, previous, sentence, before) in enumerate(user_sentences(messages)):
        for text, whole in pieces_of(sentence):
            yield Piece(text, previous, n, index, whole, sentence, before)


def cheap_features(piece: Piece) -> list[float]:
    text = piece.text
    cjk = len(HAN.findall(text))
    latin = len(LATIN.findall(text))
    return [
        float(bool(_FIRST_PERSON.search(text))),
        float(is_question(text)),
        math.log1p(len(text)),
        float(is_question(piece.previous)) if piece.previous else 0.0,
        cjk / max(cjk + latin, 1),
    ]


def features(pieces_: list[Piece], vectors: np.ndarray) -> np.ndarray:
    """One row per piece: its embedding, then the cheap features (FEATURES order)."""
    cheap = np.array([cheap_features(p) for p in pieces_], dtype=np.float64).reshape(len(pieces_), -1)
    return np.hstack([np.asarray(vectors, dtype=np.float64).reshape(len(pieces_), -1), cheap])


def score(model: TrainedModel, pieces_: list[Piece], vectors: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Per piece: the probability it is worth remembering, and the kind it would be."""
    if not pieces_:
        return np.zeros(0), []
    probabilities = model.probabilities(features(pieces_, vectors))
    classes = model.classes
    none = classes.index("none")
    keep = 1.0 - probabilities[:, none]
    kinds = [classes[int(i)] for i in np.argmax(np.where(np.arange(len(classes)) == none, -1.0, probabilities), axis=1)]
    return keep, kinds


def embed(texts: list[str]) -> np.ndarray:
    from memoryapp.providers.embeddings import get_embedder

    return np.asarray(get_embedder().embed(texts), dtype=np.float64) if texts else np.zeros((0, 0))


_CLAUSE_MARKS = ",，、:：;； "


def _glued(first: str, second: str) -> str:
    """Two sentences of two messages as one memory: a space between them, none after a Chinese stop."""
    return f"{first}{second}" if first.endswith(("。", "！", "？", "；", "，", "：")) else f"{first} {second}"


def _covering(whole: str, parts: list[str]) -> str | None:
    """The stretch of `whole` from the first of `parts` to the end of the last, as written; None when they
    are not all in it, in order."""
    start = whole.find(parts[0]) if parts else -1
    if start < 0:
        return None
    end = start + len(parts[0])
    for part in parts[1:]:
        at = whole.find(part, end)
        if at < 0:
            return None
        end = at + len(part)
    return whole[start:end]


def _joined(sentence: str, parts: list[str]) -> str:
    """Clauses of one sentence as one memory: the stretch of the sentence they span, as written (the clauses
    between them too, unless one asks); a clause that opens by leaning on the one before ("and I read every
    night") takes that one with it. Separate stretches, if a question sits between, are joined by a space."""
    parts = [p.strip() for p in parts]
    every = clauses(sentence)
    first = every.index(parts[0]) if parts[0] in every else -1
    last = every.index(parts[-1]) if parts[-1] in every else -1
    # The clause it leans on, or the head of a list ("My go-to snacks: almonds, ...").
    if (
        first > 0
        and (_CONTINUES.search(parts[0]) or POINTS_BACK.search(parts[0]) or every[first - 1].endswith((":", "：")))
        and not is_question(every[first - 1])
    ):
        parts = [every[first - 1], *parts]
    # What follows and leans on it: the rest of a list it opens, a clause that carries a value ("…,
    # eating only between 12:00 and 20:00", "…, size 56") or opens without a subject; never a question
    # or a request.
    listing = any(p.endswith((":", "：")) for p in parts)
    for clause in every[last + 1 :] if last >= 0 else []:
        if is_question(clause) or REQUEST_EN.search(clause) or REQUEST_ZH.search(clause):
            break
        if not (listing or values_in(clause) or _CONTINUES.search(clause) or _DANGLES.search(clause)):
            break
        parts.append(clause)
    stretch = _covering(sentence, parts) if len(parts) > 1 else parts[0]
    if stretch is None or any(is_question(c) for c in clauses(stretch)):
        stretch = " ".join(parts)
    return stretch.rstrip(_CLAUSE_MARKS)


def _usable(piece: Piece) -> bool:
    bare = piece.text.rstrip(" .!。！；;,，")
    return (
        3 <= len(bare) <= MAX_SENTENCE_CHARS
        and not is_question(piece.text)
        and not contains_sensitive(piece.said or piece.text)
    )


@dataclass
class _Kept:
    text: str
    probability: float
    kind: str
    message: int
    before: str = ""
    setup_only: bool = False  # a set-up below the threshold, kept only if what follows joins it


def _kept_per_sentence(said: list[Piece], keep: np.ndarray, kinds: list[str], threshold: float) -> list[_Kept]:
    """Per sentence: the whole sentence when it passes, else the clauses that pass, joined; a set-up that
    does not pass is held for what follows to join (`_merged`)."""
    out: list[_Kept] = []
    for sentence in sorted({p.sentence for p in said}):
        group = [i for i, p in enumerate(said) if p.sentence == sentence]
        whole = [i for i in group if said[i].whole and keep[i] >= threshold]
        chosen = whole or [i for i in group if not said[i].whole and keep[i] >= threshold]
        if not chosen:
            setups = [i for i in group if said[i].whole and _SETS_UP.search(said[i].text)]
            out += [_Kept(said[i].text, float(keep[i]), kinds[i], said[i].message, setup_only=True) for i in setups[:1]]
            continue
        best = max(chosen, key=lambda i: keep[i])
        text, before = _joined(said[best].said, [said[i].text for i in chosen]), said[best].before
        if (
            before
            and out
            and out[-1].text == before.rstrip(_CLAUSE_MARKS)
            and out[-1].kind != kinds[best]
            and text.startswith(before)
        ):
            text = text[len(before) :].strip()  # what it points back to is a memory of its own, of another kind
        out.append(_Kept(text, float(keep[best]), kinds[best], said[best].message, before=before))
    return out


def _one_thought(last: _Kept, item: _Kept, user_turns: list[int]) -> bool:
    """Whether `item` says more about `last`: in the same message, the same kind and not opening on the
    user ("I like my coffee black. No sugar, no milk."); in the same message or the user's next one,
    opening by pointing back or following a set-up ("Quick thing about my sister Emma." / "She's vegan.")."""
    if len(last.text) + len(item.text) >= MAX_SENTENCE_CHARS:
        return False
    same = last.message == item.message
    nxt = same or (
        item.message in user_turns
        and last.message in user_turns
        and user_turns.index(item.message) == user_turns.index(last.message) + 1
    )
    if same and last.kind == item.kind and not _STARTS_WITH_SELF.search(item.text):
        return True
    return nxt and (
        bool(_SETS_UP.search(last.text))
        or (bool(_CONTINUES.search(item.text)) and not _STARTS_WITH_SELF.search(item.text))
    )


def _merged(kept: list[_Kept], user_turns: list[int] | None = None, contents: list[str] | None = None) -> list[_Kept]:
    """Neighbouring kept sentences that say one thought (`_one_thought`) make one memory, of the kind
    of the likelier half: as written between them when one message holds both, else joined by a space."""
    user_turns, contents = user_turns or [], contents or []
    out: list[_Kept] = []
    for item in kept:
        last = out[-1] if out else None
        if last is not None and _one_thought(last, item, user_turns):
            stronger = item if last.setup_only or item.probability > last.probability else last
            content = contents[item.message] if last.message == item.message and item.message < len(contents) else ""
            rest = item.text  # less the sentence it points back to, when `last` already holds that
            if (
                item.before
                and item.text.startswith(item.before)
                and item.before.strip() in last.text + item.before[-1:]
            ):
                rest = item.text[len(item.before) :].strip()
            text = (
                item.text
                if item.text.startswith(last.text)
                else _covering(content, [last.text, rest]) or _glued(last.text, rest)
            )
            out[-1] = _Kept(
                text, stronger.probability, stronger.kind, item.message, setup_only=last.setup_only and item.setup_only
            )
        else:
            out.append(item)
    return [item for item in out if not item.setup_only]


@dataclass(frozen=True)
class Kept:
    """A memory the model keeps: the user's words, its kind, how sure the model is."""

    content: str
    kind: MemoryKind
    confidence: float


def extract(messages: list[dict], model: TrainedModel) -> list[Kept]:
    """What the model keeps of the conversation's user turns, at most 20, in the order said."""
    said = [p for p in pieces(messages) if _usable(p)]
    keep, kinds = score(model, said, embed([p.text for p in said]))
    user_turns = [n for n, m in enumerate(messages) if m.get("role") == "user"]
    message_texts = [str(m.get("content") or "") for m in messages]
    kept = _merged(_kept_per_sentence(said, keep, kinds, model.threshold), user_turns, message_texts)
    contents = [trimmed(k.text) for k in kept]
    found: dict[str, Kept] = {}
    for item, content in zip(kept, contents, strict=True):
        key = normalise_content(content)
        # A sentence joined into a later one ("...network. I have to run them through proxy-env") is kept there.
        if not key or key in found or any(content != other and content in other for other in contents):
            continue
        found[key] = Kept(content, MemoryKind(item.kind), round(item.probability, 3))
    return list(found.values())[:20]


def guess_kinds(texts: list[str]) -> list[str]:
    """Per text (a memory written elsewhere, "Prefers concise answers"), the kind the model would give its
    first piece; "fact" where there is no model for this embedder or the text gives it no piece."""
    from .model import usable

    model = usable(MODEL_NAME)
    if model is None or not texts:
        return [MemoryKind.FACT for _ in texts]
    firsts = [next(iter(pieces([{"role": "user", "content": text}])), None) for text in texts]
    found = [piece for piece in firsts if piece is not None]
    _, kinds = score(model, found, embed([piece.text for piece in found]))
    guessed = iter(kinds)
    return [next(guessed) if piece is not None else MemoryKind.FACT for piece in firsts]
