"""The provider used when no language model is configured: deterministic, no network.

Extraction convention: a memory's content is the user's own sentence, kept in their words
and language (first person, "I like Vue 3", "我喜欢 Vue 3"), with surrounding whitespace and
the final full stop trimmed. Nothing is rewritten, so nothing is invented; prompts introduce
memories as things the user said. Only USER turns are read, sentence by sentence; questions
and anything `contains_sensitive` flags are never extracted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .prompts import parse_memories_block
from .schemas import (
    Candidate,
    CandidateWithNeighbours,
    Decision,
    DecisionAction,
    DecisionResult,
    ExtractionResult,
    MemoryKind,
    normalise_content,
)
from .sensitive import contains_sensitive

P, F, G, L = MemoryKind.PREFERENCE, MemoryKind.FACT, MemoryKind.GOAL, MemoryKind.LESSON
IMPORTANCE = {P: 0.6, F: 0.7, G: 0.7, L: 0.6}
CONFIDENCE = 0.6
MAX_SENTENCE_CHARS = 500  # longer is a pasted blob, not something to remember

# First match wins, so specific rules come before broad ones ("my goal is" before "my ... is").
_RULES: list[tuple[MemoryKind, re.Pattern[str]]] = [
    (L, re.compile(
        r"\bI(?:'ve| have)? learn(?:ed|t)\b|\blessons?(?: learned)?\s*:|\bnote to self\b|^remember to\b"
        r"|我学到|我学会了|教训|以后(?:要|不要|别)|切记|记住(?!我)", re.I)),
    (P, re.compile(
        r"\bI (?:really |do |still |now |mostly |usually |also |always |never |much )?"
        r"(?:like|love|prefer|enjoy|hate|dislike|use)\b"
        r"|\bI(?: do not|'m not| am not| don't| no longer) (?:like|enjoy|use|using)\b"
        r"|\bI(?:'m| am) (?:now |still )?using\b|\bmy (?:favou?rite|preferred)\b"
        r"|我(?:很|非常|特别|还是|最|也|比较|一直|现在|更|真的)?(?:喜欢|爱|偏好|讨厌|不喜欢)"
        r"|我(?:现在|一直|平时|正在|在|也|都|主要)?(?:改用|换用|用)|我最爱", re.I)),
    (G, re.compile(
        r"\bI(?:'m| am) (?:currently |now )?(?:working on|learning|studying|building|trying to|planning to)\b"
        r"|\bI (?:want|plan|intend|hope|aim) to\b|\bmy (?:goal|plan|aim|dream) is\b"
        r"|我(?:现在)?正在|我想(?!知道|问|请)|我(?:打算|计划|准备)|我的(?:目标|计划|梦想)是|我在学(?!校)|我要学", re.I)),
    (F, re.compile(
        r"\bmy name is\b|\bcall me\b|\bI(?:'m| am) (?:a|an)\b(?! (?:bit|little|lot)\b)|\bI(?:'m| am) from\b"
        r"|\bI (?:now )?live in\b|\bI(?:'m| am) (?:living|based) in\b|\bI (?:now )?work (?:at|as|for|in)\b"
        r"|\bmy (?:\w+ ){1,2}(?:is|are)\b"
        r"|我叫|我的名字是|我是(?!说|不是|在)|我(?:现在)?住在|我在[^，。,！？\s]{1,20}?(?:工作|上班)|我的\S{1,6}是", re.I)),
    (L, re.compile(r"^(?:always|never)\b|\bnever again\b|永远不要|千万别|一定要记得", re.I)),
]

_SENTENCE_END = re.compile(r"(?<=[!?。！？；;])|(?<=\.)(?=\s|$)|\n+")
_QUESTION_EN = re.compile(
    r"^(?:what|how|why|who|where|when|which|can you|could you|would you|will you|do you|does|did you"
    r"|is there|are there|should i)\b", re.I)
_QUESTION_ZH = re.compile(r"(?:吗|呢|嘛)$|是不是|能不能|可不可以|为什么")
_CHANGE = re.compile(r"\bnow\b|\binstead\b|\bswitched to\b|\bno longer\b|\banymore\b|\bchanged to\b"
                     r"|\bmoved to\b|现在|改用|不再|换成|换了|搬到", re.I)
# Single-valued facts: a change to one replaces the other even with no shared words.
_TOPICS = [
    ("name", re.compile(r"\bmy name is\b|\bcall me\b|我叫|我的名字是", re.I)),
    ("home", re.compile(r"\blive in\b|\bbased in\b|\bmoved to\b|住在|搬到", re.I)),
    ("work", re.compile(r"\bwork (?:at|for|as|in)\b|工作|上班", re.I)),
]
_STOP = set(
    "i i'm im me my mine a an the is am are was be to of in on at for with from and or but it its this that "
    "now instead switched no longer anymore changed not don't do really still also just very "
    "like love prefer enjoy hate dislike use using user".split()
)
_STOP_CJK = set("我你他她它的了是在不再现改换成也都很就还用要想喜欢爱讨厌")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_CJKISH = "\u3000-\u9fff\uf900-\ufaff\uff00-\uffef"  # CJK, kana, CJK and full-width punctuation
_CHUNK = re.compile(rf"[{_CJKISH}]{{1,4}}\s*|[^\s{_CJKISH}]+\s*|\s+")  # covers every character


class OfflineLLM:
    name = "offline"
    offline = True

    def __init__(self) -> None:
        self.calls = 0  # kept for parity with real providers; bench/ reads it

    # -- extraction ---------------------------------------------------------

    def extract(self, messages: list[dict]) -> ExtractionResult:
        self.calls += 1
        found: dict[str, Candidate] = {}
        for sentence in _user_sentences(messages):
            kind = classify(sentence)
            if kind is None:
                continue
            content = _trim(sentence)
            key = normalise_content(content)
            if key and key not in found:
                found[key] = Candidate(content=content, kind=kind, importance=IMPORTANCE[kind], confidence=CONFIDENCE)
        return ExtractionResult(candidates=list(found.values())[:20])

    def decide(self, items: list[CandidateWithNeighbours]) -> DecisionResult:
        self.calls += 1
        seen: set[str] = set()
        decisions = []
        for i, item in enumerate(items):
            decisions.append(_decide_one(i, item, seen))
            seen.add(normalise_content(item.candidate.content))
        return DecisionResult(decisions=decisions)

    def summarise(self, messages: list[dict]) -> str:
        self.calls += 1
        sentences = [_trim(s)[:60] for s in _user_sentences(messages)][:3]
        if not sentences:
            return ""
        if is_mostly_cjk(" ".join(sentences)):
            return ("聊了：" + "；".join(sentences))[:200]
        return ("Talked about: " + "; ".join(sentences))[:200]

    # -- chat ---------------------------------------------------------------

    def chat(self, messages: list[dict]) -> str:
        self.calls += 1
        return _offline_reply(messages)

    def stream_chat(self, messages: list[dict]) -> Iterator[str]:
        yield from _CHUNK.findall(self.chat(messages))


def classify(sentence: str) -> MemoryKind | None:
    """The kind a user sentence would be stored as, or None when it is not memory material."""
    text = sentence.strip().replace("\u2019", "'")
    bare = text.rstrip(" .!。！；;")
    if len(bare) < 3 or len(bare) > MAX_SENTENCE_CHARS or contains_sensitive(text):
        return None
    if text.endswith(("?", "？")) or _QUESTION_EN.search(bare) or _QUESTION_ZH.search(bare):
        return None
    for kind, pattern in _RULES:
        if pattern.search(bare):
            return kind
    return None


def is_mostly_cjk(text: str) -> bool:
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    return cjk > 0 and cjk / (cjk + latin) >= 0.3  # one Chinese character says more than one letter


def _user_sentences(messages: list[dict]) -> Iterator[str]:
    for message in messages:
        if message.get("role") != "user":
            continue
        for sentence in _SENTENCE_END.split(str(message.get("content") or "")):
            if sentence and sentence.strip():
                yield sentence.strip()


def _trim(sentence: str) -> str:
    return " ".join(sentence.split()).rstrip(".。;；").strip()


def _decide_one(i: int, item: CandidateWithNeighbours, seen: set[str]) -> Decision:
    candidate = item.candidate
    key = normalise_content(candidate.content)
    if key in seen:
        return Decision(candidate_index=i, action=DecisionAction.SKIP, reason="repeated in this batch")
    for neighbour in item.neighbours:
        if normalise_content(neighbour.content) == key:
            return Decision(candidate_index=i, action=DecisionAction.SKIP, target_id=neighbour.id, reason="already known")
    if _CHANGE.search(candidate.content):
        for neighbour in item.neighbours:
            if neighbour.kind == candidate.kind and _same_topic(candidate.content, neighbour.content):
                return Decision(
                    candidate_index=i, action=DecisionAction.UPDATE, target_id=neighbour.id, reason="stated a change"
                )
    return Decision(candidate_index=i, action=DecisionAction.ADD, reason="new")


def _same_topic(a: str, b: str) -> bool:
    # Guard against superseding an unrelated memory just because it was the nearest one.
    for _name, pattern in _TOPICS:
        if pattern.search(a) and pattern.search(b):
            return True
    return bool(_topic_tokens(a) & _topic_tokens(b))


def _topic_tokens(text: str) -> set[str]:
    text = normalise_content(text)
    words = {w for w in re.findall(r"[a-z0-9][a-z0-9+#'\-]*", text) if len(w) > 1 and w not in _STOP}
    for run in re.findall(r"[\u3400-\u9fff]+", text):
        words |= {run[j : j + 2] for j in range(len(run) - 1) if not (set(run[j : j + 2]) & _STOP_CJK)}
    return words


def _offline_reply(messages: list[dict]) -> str:
    memories: list[str] = []
    for message in messages:
        if message.get("role") == "system":
            memories += parse_memories_block(str(message.get("content") or ""))
    last_user = next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"), "")
    if is_mostly_cjk(last_user):
        head = "尚未配置语言模型，所以我无法真正回答（离线模式；设置 OPENAI_BASE_URL 或 OPENAI_API_KEY 即可接入）。"
        tail = "\n记忆中：\n" + "\n".join(f"- {m}" for m in memories) if memories else "\n没有与这条消息相关的记忆。"
    else:
        head = (
            "No language model is configured, so I can't give a real answer "
            "(offline mode; set OPENAI_BASE_URL or OPENAI_API_KEY to connect one)."
        )
        tail = "\nFrom memory:\n" + "\n".join(f"- {m}" for m in memories) if memories else (
            "\nNo stored memories match this message."
        )
    return head + tail
