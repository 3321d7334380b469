"""Which recalled memories a chat turn hands the model, decided by a trained model (weights/relevance.npz,
trained by `python -m bench.train relevance` on bench/chat_cases/train/).

Recall finds candidates by meaning as before; the model then scores each (message, memory) pair from
cheap features: the cosine and where it stands among the candidates, whether the two are in different languages, the
message's shape (asks or requests: engine/questions.py; first person; length; leaning on the turn
before), the words the two share, the memory's kind, the language of each, and how likely the message
is to need any memory of the user at all (a logistic regression over the message's vector, kept in the
model's meta: "how should I set up CI for this repo?" does, "what's the capital of Peru?" and "how's it
going?" do not). A message under the message threshold recalls nothing, unless it asks in the first
person (`asks_about_self`) or names someone the recalled memories name as close to the user ("Where
does Anna live now?", "My sister Anna moved to Munich": `choose`); otherwise pairs over the pair
threshold are kept, best first, at most 3, and a second or third only at `relative` times the first's
probability or more. The thresholds were chosen on bench.chat's dev personas together with the training
turns scored out of fold. (A learned weighted cosine over the two vectors was tried: it took a second
query per turn, about 10 ms, and its weight came out negative.) Without the model (not trained,
another embedder, `rules_only()`), the fixed cosine gates of recipes.py decide instead.

The trainer calls `pair_features` on plain data, the chat turn on recalled rows: one function, so the
features seen in training are the features seen in a chat.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..questions import announces, wants
from ..text import (
    EN_STOPWORDS,
    ZH_STOPWORDS,
    content_words,
    has_cjk,
    leans_on_previous,
    names_someone_else,
    speaks_of_user,
    user_has_a_part,
)

MODEL_NAME = "relevance"
CANDIDATES = 10  # what recall proposes to the model; the prompt still takes at most 3
KINDS = ("preference", "fact", "lesson", "goal", "context", "episode")
FEATURES = (
    "cosine",
    "cosine_below_best",
    "cosine_rank",
    "question",
    "first_person",
    "leans",
    "log_content_words",
    "message_cjk",
    "memory_cjk",
    "shared_words",
    "shared_share",
    "message_needs_memory",
    *(f"kind_{kind}" for kind in KINDS),
    "cross_language",
    "cosine_cross_language",
    "someone_else",
    "someone_else_alone",
)


@dataclass(frozen=True)
class Candidate:
    content: str
    kind: str
    cosine: float


@dataclass(frozen=True)
class MessageShape:
    """What the message alone says, computed once per turn."""

    question: bool
    first_person: bool
    leans: bool
    words: frozenset[str]
    cjk: bool
    needs_memory: float  # the message-level probability that any memory is needed
    vector: np.ndarray  # the query's embedding, unit length
    someone_else: bool = False  # names someone outside the household (a friend, a colleague, 表妹)
    user_in_it: bool = True  # beside them, still speaks of the user ("my friend and I")

    @classmethod
    def of(cls, message: str, leans: bool, needs_memory: float, vector) -> MessageShape:
        return cls(
            wants(message),
            speaks_of_user(message),
            leans,
            frozenset(content_words(message)),
            has_cjk(message),
            float(needs_memory),
            unit(vector),
            names_someone_else(message),
            user_has_a_part(message),
        )


def unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float64)
    return vector / (np.linalg.norm(vector) or 1.0)


@lru_cache(maxsize=8192)
def _memory_words(content: str) -> frozenset[str]:
    # A user's memories come back turn after turn: segmenting each once saves most of jieba's time.
    return frozenset(content_words(content))


def pair_features(shape: MessageShape, candidates: list[Candidate]) -> np.ndarray:
    """One row per candidate, columns as FEATURES."""
    if not candidates:
        return np.zeros((0, len(FEATURES)))
    cosines = np.array([c.cosine for c in candidates])
    # Only comparisons that hold in a store of one memory as in one of thousands: the best cosine and the
    # rank (a z-score among candidates ranked a lone, exact memory as average).
    best = cosines.max()
    order = {index: rank for rank, index in enumerate(np.argsort(-cosines, kind="stable"))}
    rows = []
    for index, candidate in enumerate(candidates):
        shared = len(shape.words & _memory_words(candidate.content))
        memory_cjk = has_cjk(candidate.content)
        # Across languages the cosine runs lower for the same meaning: the model weighs it apart.
        cross = float(shape.cjk != memory_cjk)
        rows.append(
            [
                candidate.cosine,
                best - candidate.cosine,
                min(order[index], 10),
                shape.question,
                shape.first_person,
                shape.leans,
                math.log1p(len(shape.words)),
                shape.cjk,
                memory_cjk,
                shared,
                shared / max(len(shape.words), 1),
                shape.needs_memory,
                *(candidate.kind == kind for kind in KINDS),
                cross,
                cross * candidate.cosine,
                shape.someone_else,
                shape.someone_else and not shape.user_in_it,
            ]
        )
    return np.asarray(rows, dtype=np.float64)


def needs_memory(weights: np.ndarray, bias: float, query_vector) -> float:
    """Logistic regression over the unit query vector: does this message need any memory of the user?"""
    return float(1.0 / (1.0 + np.exp(-(unit(query_vector) @ weights + bias))))


def asks_about_self(message: str) -> bool:
    """The user asks or requests something in the first person ("what is my favourite tea?", "帮我排个计划",
    "我们这个仓库的 CI 怎么配？"), or says what they are about to do ("I'm about to start docker compose…",
    "我准备启动…"): the message gate always lets it through. Speaking of oneself without
    asking ("lol my roommate burnt the rice again", "周一好难熬啊") is chatter, and "translate: let's go
    hiking together" asks for nothing of the user's: the gate decides those. (On bench.chat's dev turns
    and the training turns out of fold, the first person plural scored as the singular alone.)"""
    return speaks_of_user(message) and (wants(message) or announces(message))


def part(model, name: str) -> tuple[np.ndarray, float]:
    """A logistic regression kept in the model's meta: "message" (does the message need any memory?)."""
    stored = model.meta[name]
    return np.asarray(stored["weights"], dtype=np.float64), float(stored["bias"])


_CAPITALISED = re.compile(r"[A-Z][\w'-]*[a-z][\w'-]*")  # "Anna", "McKenzie", not "US", "I"
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？]\s*|\n)\s*[\"'(“‘]?([A-Z][\w'-]*)")
_NOT_NAMES = frozenset(
    (
        "january february march april may june july august september october november december monday tuesday "
        "wednesday thursday friday saturday sunday christmas easter ok okay hi hey hello thanks please"
    ).split()
)
RARE_ZH = 1000  # a Chinese word jieba's dictionary counts fewer times than this (or not at all) is rare


_NOT_NAMES_ZH = frozenset("t m f r d".split())  # jieba's tags for time, number, position, pronoun, adverb words


def _rare_zh(word: str) -> bool:
    import jieba
    import jieba.posseg

    return (
        len(word) >= 2
        and has_cjk(word)
        and word not in ZH_STOPWORDS
        and (jieba.dt.FREQ.get(word) or 0) < RARE_ZH
        and jieba.posseg.dt.word_tag_tab.get(word) not in _NOT_NAMES_ZH
    )


def names_in(message: str) -> frozenset[str]:
    """What the message names that a memory could name too: capitalised words not opening a sentence
    ("Anna", "Caroline", "Einstein") and rare Chinese words ("小雨", "朵朵", "王磊"). Cheap: no tagger."""
    text = message.replace("’", "'")
    # An English sentence's first word is capitalised whatever it is; a Latin word in Chinese is as written.
    openers = set() if has_cjk(text) else {m.start(1) for m in _SENTENCE_START.finditer(text)}
    english = {
        m.group(0)
        for m in _CAPITALISED.finditer(text)
        if m.start() not in openers and m.group(0).casefold() not in _NOT_NAMES
    }
    return frozenset(english | {w for w in content_words(message) if _rare_zh(w)})


# Words that say a name in a memory is someone close to the user ("my sister Anna", "Anna, her coach",
# "a corgi called Mantou", "妹妹小雨", "同事Leo", "叫馒头"), or a speaker ("Caroline: ...").
_RELATIONS_EN = frozenset(
    (
        "mom mum mother dad father parent parents sister brother sibling son daughter kid kids child children "
        "baby wife husband partner spouse boyfriend girlfriend fiance fiancee friend friends bestie colleague "
        "coworker boss manager teammate classmate roommate flatmate neighbour neighbor cousin aunt uncle niece "
        "nephew grandma grandmother grandpa grandfather granny teacher coach mentor therapist doctor dog cat "
        "puppy kitten pet named called"
    ).split()
)
_RELATIONS_ZH = re.compile(
    "(?:妈妈|妈|母亲|爸爸|爸|父亲|姐姐|妹妹|哥哥|弟弟|姐|妹|哥|弟|儿子|女儿|孩子|宝宝|老公|老婆|妻子|丈夫|爱人|对象|"
    "男朋友|女朋友|未婚夫|未婚妻|朋友|闺蜜|同事|领导|老板|上司|同学|室友|邻居|表姐|表妹|表哥|表弟|堂姐|堂妹|"
    "堂哥|堂弟|阿姨|叔叔|舅舅|姑姑|奶奶|爷爷|外婆|外公|姥姥|老师|教练|医生|狗|猫|叫|名叫)$"
)  # just before the name
_WORD_EN = re.compile(r"[A-Za-z][A-Za-z'-]*")


@lru_cache(maxsize=8192)
def _memory_names(content: str) -> frozenset[str]:
    """The names a memory gives someone close to the user (see _RELATIONS_*)."""
    text = content.replace("’", "'")
    names = set()
    words = [(m.group(0).removesuffix("'s"), m.start()) for m in _WORD_EN.finditer(text)]
    for index, (word, at) in enumerate(words):
        if (
            _CAPITALISED.fullmatch(word)
            and word.casefold() not in EN_STOPWORDS
            and (
                {w.casefold() for w, _ in words[max(0, index - 3) : index + 4]} & _RELATIONS_EN
                or _RELATIONS_ZH.search(text[max(0, at - 4) : at])
            )
        ):
            names.add(word)
    speaker = re.match(r"\s*([A-Z][\w'-]*)\s*[:：]", text)
    if speaker:
        names.add(speaker.group(1))
    for word in _memory_words(content):
        if _rare_zh(word):
            at = text.find(word)
            if at >= 0 and (
                _RELATIONS_ZH.search(text[max(0, at - 4) : at])
                or text[at + len(word) : at + len(word) + 1] in (":", "：")
            ):
                names.add(word)
    return frozenset(names)


def shares_a_name(names: frozenset[str], content: str) -> bool:
    """Whether the memory names, as someone close to the user, someone the message names."""
    return bool(names & _memory_names(content))


def message_needs_memory(model, query_vector, message: str) -> bool:
    """False: the message needs no memory of the user (a general question, chatter): recall is skipped.
    A message that asks in the first person (asks_about_self) always goes on to the pair model: the
    vector alone read some of those as general questions."""
    if asks_about_self(message):
        return True
    return needs_memory(*part(model, "message"), query_vector) >= float(model.meta["message_threshold"])


def choose(
    model, message: str, previous_user_messages: list[str], query_vector, candidates: list[Candidate], limit: int = 3
) -> list[tuple[int, float]]:
    """(index into candidates, probability) of those the model keeps, best first, at most `limit`.

    A message the gate finds needs no memory still gets the candidates that name someone it names as
    someone close to the user ("Where does Anna live now?" and "My sister Anna moved to Munich"; a
    speaker, "Caroline: ..."): a question about them is about the user's world, not general knowledge.
    Those are scored as if the message needed a memory; the others stay out. A thing both name is not
    enough ("who wrote Dune?" and "couldn't get into Dune"; "芒果和榴莲哪个热量高" and "乐乐对芒果过敏"), and
    "When did Einstein publish relativity?" names no one the memories do."""
    if not candidates:
        return []
    need = needs_memory(*part(model, "message"), query_vector)
    allowed: Sequence[int] = range(len(candidates))
    if not message_needs_memory(model, query_vector, message):
        names = names_in(message)
        allowed = [i for i, c in enumerate(candidates) if names and shares_a_name(names, c.content)]
        if not allowed:
            return []
        need = 1.0
    leans = bool(previous_user_messages) and leans_on_previous(message)
    shape = MessageShape.of(message, leans, need, query_vector)
    scores = model.yes(pair_features(shape, candidates))
    kept = [(index, float(scores[index])) for index in allowed if scores[index] >= model.threshold]
    kept.sort(key=lambda pair: (-pair[1], pair[0]))
    # Beside a clearly better memory a weaker one is more often noise than a second need.
    relative = float(model.meta.get("relative", 0.0))
    return [(index, score) for index, score in kept[:limit] if score >= relative * kept[0][1]]
