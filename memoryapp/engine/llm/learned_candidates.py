"""Extraction with no language model, by the trained model `extraction` (bench/train/extraction.py): the
user's sentences are split as the rules split them, a question's context clauses are kept apart from the
question ("I'm vegetarian" in "I'm vegetarian, what should I cook tonight?"), and each piece is scored
on its embedding plus a few cheap features. A piece kept is stored in the user's own words; a kept
sentence that only says more about the one before it joins that memory (`_merged`).

Questions stay a rule (a piece shaped like a question is never a memory), and `contains_sensitive` still
drops secrets before the model is asked: a secret anywhere in a sentence drops every piece of it.
The sentence split, the joining of a sentence that points back and the trimming are the rules'
(defaults.py), so both defaults store the same words for the same sentence.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..learned.model import TrainedModel
from ..questions import is_question
from ..sensitive import contains_sensitive
from . import defaults
from .schemas import Candidate, ExtractionResult, MemoryKind, normalise_content

MODEL_NAME = "extraction"
FEATURES = ("embedding", "first_person", "question_shape", "log_length", "previous_asks", "cjk_share")
_CLAUSE_END = re.compile(r"(?<=[,，、:：;；])")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|my|me|mine|we|we're|our|us)\b|我|咱|俺", re.I)
# A sentence that opens on the user ("I live in Berlin", "Also I hate cilantro", "我住在上海") states
# something of its own; one that does not ("No sugar, no milk") usually says more about the one before.
_STARTS_WITH_SELF = re.compile(r"^\W*(?:[a-z]+[\s,]+){0,2}(?:i|i'm|im|i've|i'd|my|we|we're|our)\b|^\W*.{0,3}我", re.I)
# A sentence that opens by pointing back ("She's vegan", "So pescatarian now", "都是橘猫", "不过这东西…",
# "对，考408") says more about the one before, whatever kind the model gives each half; one that sets up
# what follows ("Quick thing about my sister Emma", "跟你说下我女儿的情况") is the first half of one thought.
_CONTINUES = re.compile(r"^\W*(?:so|and|but|which|it|it's|its|this|that|these|they|they're|she|she's|he|he's|both"
                        r"|(?:learned|learnt|found|figured) (?:that|this|it) out|(?:learned|learnt) (?:that|this|it) the hard way)\b"
                        r"|^\W*(?:都|对[，,]|很|挺|不过|但是?|她|他|它|这|所以|而且|并且)", re.I)
_SETS_UP = re.compile(r"\b(?:thing|something|a word|update|note) about\b|let me tell you about|跟你说(?:一?下|一声)"
                      r"|说(?:一?下).{0,12}的(?:情况|事)", re.I)


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
    return [c.strip() for c in _CLAUSE_END.split(sentence) if c.strip()]


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
    proxy-env", is joined to the one before)."""
    previous, before = "", ""
    for n, message in enumerate(messages):
        content = str(message.get("content") or "")
        if message.get("role") == "assistant":
            previous = content
            continue
        if message.get("role") != "user":
            continue
        for sentence in defaults._SENTENCE_END.split(content):
            sentence = (sentence or "").strip()
            if not sentence:
                continue
            said, joined = sentence, ""
            if before and defaults._POINTS_BACK.search(sentence) and len(before) + len(sentence) <= defaults.MAX_SENTENCE_CHARS:
                said = f"{before} {sentence}" if before.endswith((";", ",", ".", "?", "!")) else f"{before}{sentence}"
                joined = before
            before = sentence
            yield n, previous, said, joined
        previous = ""


def pieces(messages: list[dict]) -> Iterator[Piece]:
    for index, (n, previous, sentence, before) in enumerate(user_sentences(messages)):
        for text, whole in pieces_of(sentence):
            yield Piece(text, previous, n, index, whole, sentence, before)


def cheap_features(piece: Piece) -> list[float]:
    text = piece.text
    cjk = len(defaults._CJK.findall(text))
    latin = len(defaults._LATIN.findall(text))
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


def _joined(texts: list[str]) -> str:
    glue = "" if defaults.is_mostly_cjk("".join(texts)) else " "
    return glue.join(t.strip() for t in texts).rstrip(",，、:：;； ")


def _usable(piece: Piece) -> bool:
    bare = piece.text.rstrip(" .!。！；;,，")
    return (3 <= len(bare) <= defaults.MAX_SENTENCE_CHARS and not is_question(piece.text)
            and not contains_sensitive(piece.said or piece.text))


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
        text, before = _joined([said[i].text for i in chosen]), said[best].before
        if before and out and out[-1].text == _joined([before]) and out[-1].kind != kinds[best] and text.startswith(before):
            text = text[len(before):].strip()  # what it points back to is a memory of its own, of another kind
        out.append(_Kept(text, float(keep[best]), kinds[best], said[best].message))
    return out


def _one_thought(last: _Kept, item: _Kept, user_turns: list[int]) -> bool:
    """Whether `item` says more about `last`: in the same message, the same kind and not opening on the
    user ("I like my coffee black. No sugar, no milk."); in the same message or the user's next one,
    opening by pointing back or following a set-up ("Quick thing about my sister Emma." / "She's vegan.")."""
    if len(last.text) + len(item.text) >= defaults.MAX_SENTENCE_CHARS:
        return False
    same = last.message == item.message
    nxt = same or (item.message in user_turns and last.message in user_turns
                   and user_turns.index(item.message) == user_turns.index(last.message) + 1)
    if same and last.kind == item.kind and not _STARTS_WITH_SELF.search(item.text):
        return True
    return nxt and (bool(_SETS_UP.search(last.text)) or
                    (bool(_CONTINUES.search(item.text)) and not _STARTS_WITH_SELF.search(item.text)))


def _merged(kept: list[_Kept], user_turns: list[int] | None = None) -> list[_Kept]:
    """Neighbouring kept sentences that say one thought (`_one_thought`) make one memory, of the kind
    of the likelier half."""
    user_turns = user_turns or []
    out: list[_Kept] = []
    for item in kept:
        last = out[-1] if out else None
        if last is not None and _one_thought(last, item, user_turns):
            glue = "。" if defaults.is_mostly_cjk(last.text) else ". "
            stronger = item if last.setup_only or item.probability > last.probability else last
            out[-1] = _Kept(f"{defaults._trim(last.text)}{glue}{item.text}", stronger.probability, stronger.kind,
                            item.message, setup_only=last.setup_only and item.setup_only)
        else:
            out.append(item)
    return [item for item in out if not item.setup_only]


def extract_candidates(messages: list[dict], model: TrainedModel) -> ExtractionResult:
    said = [p for p in pieces(messages) if _usable(p)]
    keep, kinds = score(model, said, embed([p.text for p in said]))
    user_turns = [n for n, m in enumerate(messages) if m.get("role") == "user"]
    kept = _merged(_kept_per_sentence(said, keep, kinds, model.threshold), user_turns)
    contents = [defaults._trim(k.text) for k in kept]
    found: dict[str, Candidate] = {}
    for item, content in zip(kept, contents, strict=True):
        key = normalise_content(content)
        # A sentence joined into a later one ("...network. I have to run them through proxy-env") is kept there.
        if not key or key in found or any(content != other and content in other for other in contents):
            continue
        kind = MemoryKind(item.kind)
        found[key] = Candidate(content=content, kind=kind, importance=defaults.IMPORTANCE[kind],
                               confidence=round(item.probability, 3))
    return ExtractionResult(candidates=list(found.values())[:20])
