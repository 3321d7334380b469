"""What each task does when no language model is configured: rules, deterministic, no network.

A trained small model will replace these rules; until then they are the default implementation of
each task in this package (candidates, decisions, chat_summary, replies, promotion), which call them
when they are given no model (episodes: episode_rules.py). They are the rules the offline "provider" had,
moved as they stood.

Extraction convention: a memory's content is the user's own sentence, kept in their words
and language (first person, "I like Vue 3", "我喜欢 Vue 3"), with surrounding whitespace and
the final full stop trimmed. Nothing is rewritten, so nothing is invented; prompts introduce
memories as things the user said. Only USER turns are read, sentence by sentence; questions
and anything `contains_sensitive` flags are never extracted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from memoryapp.lib.scripts import HAN, HAN_RUN, is_mostly_cjk
from memoryapp.lib.sentences import MAX_SENTENCE_CHARS, POINTS_BACK, sentence_spans, trimmed

from ..learned.slots import may_replace
from ..questions import is_question
from ..reply_language import ZH, message_language
from ..sensitive import contains_sensitive
from .delimiters import parse_memories_block
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

if TYPE_CHECKING:
    from memoryapp.models import Memory

P, F, G, L = MemoryKind.PREFERENCE, MemoryKind.FACT, MemoryKind.GOAL, MemoryKind.LESSON
IMPORTANCE = {P: 0.6, F: 0.7, G: 0.7, L: 0.6}
CONFIDENCE = 0.6
CROSS_KIND_SIMILARITY = 0.5  # a change may supersede a memory of another kind this close
COMPACT_CHARS = 1200  # an extractive rolling summary: about a sixth of the history budget
PROMOTE_MIN_IMPORTANCE = 0.7  # a memory that keeps mattering becomes core when it is this important

# First match wins, so specific rules come before broad ones ("my goal is" before "my ... is").
_RULES: list[tuple[MemoryKind, re.Pattern[str]]] = [
    (
        L,
        re.compile(
            r"\bI(?:'ve| have)? learn(?:ed|t)\b|\blessons?(?: learned)?\s*:|\bnote to self\b|^remember to\b"
            r"|\bI (?:have|need|had) to (?:run|use|set|turn|call|wrap|pass|put|restart|connect|pin|keep)\b.{0,60}"
            r"\b(?:through|with|via|first|before|to)\b|\bturns out\b|\bfound out the hard way\b|\bthat's my rule\b"
            r"|\bdon't let me forget\b|\b(?:always|never) (?:ask|check|back up|test|pin|use|run|do)\b"
            r"|我学到|我学会了|教训|以后[^，。,！？]{0,24}(?:一定|要先|先|不要|别|都不|只|得)|切记|记住(?!我)"
            r"|(?:需要|必须|得|只能)(?:先)?(?:使用|用|通过|加|手洗|提前)[^，。,]{0,30}|我发现[^，。,]{2,30}",
            re.I,
        ),
    ),
    (
        G,
        re.compile(
            r"\bI(?:'m| am) (?:currently |now )?(?:working on|learning|studying|building|trying to|planning to|training for"
            r"|preparing for|saving (?:up )?for)\b|\bI(?:'d| would) (?:love|like) to\b(?! know| ask)"
            r"|\bI (?:want|plan|intend|hope|aim) to\b|\bmy (?:goal|plan|aim|dream) (?:is|for)\b|\bgoal (?:is|this year)\b"
            r"|我(?:现在)?正在(?:学|准备|备考|练)|我想(?!知道|问|请)|(?:我|今年|明年|年底前|下半年|这学期)?(?:打算|计划|准备)(?!好了)"
            r"|我的(?:目标|计划|梦想)是|目标是|我在学(?!校)|我要学|(?:今年|明年|年底|下半年|这个月)[^，。,]{0,6}想"
            r"|一定要学会|在准备[^，。,]{1,12}(?:考试|比赛|面试)",
            re.I,
        ),
    ),
    (
        P,
        re.compile(
            r"\bI (?:(?:really|do|still|now|mostly|usually|also|always|never|much|only|rarely|often|honestly) )*"
            r"(?:like|love|prefer|enjoy|hate|dislike|use|drink|eat|wear|want|go with|stick to|listen to|read)\b"
            r"|\bI(?: do not|'m not| am not| don't| no longer| can't stand| never) (?:like|enjoy|use|using|drink|eat)\b"
            r"|\bI(?:'d| would) rather\b|\bI(?:'m| am) (?:now |still )?using\b|\bmy (?:favou?rite|preferred)\b"
            r"|\bI(?:'m| am) (?:a )?(?:vegetarian|vegan|pescatarian)\b|\b(?:stick to|please keep|keep it)\b"
            r"|我[^，。,！？]{0,12}?(?:更|很|最|特别|比较|非常)?(?:喜欢|偏好|讨厌|受不了|离不开|爱(?:喝|吃|看|听|用|玩))"
            r"|我(?:现在|一直|平时|正在|在|也|都|主要|还是|基本)*(?:改用|换用|用)|我最爱"
            r"|我(?:现在|平时|一般|一直|每天|早上|晚上|从来|也|都|还|看书|喝茶|基本)*(?:不|只|从不|很少|经常|习惯|每天)+"
            r"(?:喝|吃|穿|抽|玩|看|听|用|坐|开|骑|跑|去)|我习惯|我(?:每天|每周|一般)[^，。,]{1,12}"
            r"|(?:平时|一直|总是|向来)(?:不|只)?(?:喝|吃|看|听|用)|跟我说话|别(?:给我)?(?:排|用|发|推荐)|一直在(?:循环|听|看)"
            r"|只(?:看|喝|吃|用|听|穿)",
            re.I,
        ),
    ),
    (
        F,
        re.compile(
            r"\bmy name is\b|\bcall me\b|\bI(?:'m| am) (?:a|an)\b(?! (?:bit|little|lot)\b)|\bI(?:'m| am) (?:originally )?from\b"
            r"|\bI (?:now )?live in\b|\bI(?:'m| am|'ve been) (?:living|based) in\b|\bI (?:now )?work (?:at|as|for|in)\b"
            r"|\bmy (?:\w+ ){1,2}(?:is|are)\b|\bI(?:'m| am) allergic\b|\bI have (?:a |an )?(?:type \d |\w+ )?"
            r"(?:diabetes|allergy|intolerance|asthma|condition|kids?|children|daughter|son|dog|cat)\b"
            r"|\bmy (?:daughter|son|wife|husband|partner|sister|brother|mom|dad|mother|father|nephew|niece|kid|dog|cat)\b"
            r"|\bI (?:drive|own|have) (?:a|an) \b|\b(?:at work|our team) (?:we're|we are|is) (?:on|using)\b"
            r"|\bI (?:just |recently )?(?:joined|started (?:a new job |working )?at|moved to|relocated to|got promoted)\b"
            r"|\bgot promoted\b|\brelocated to\b|\bwe (?:finally )?moved\b"
            r"|我叫|我的名字是|我是(?!说|不是|在)|我(?:现在)?住在|我在[^，。,！？]{1,20}?(?:工作|上班|当|做)"
            r"|我的\s?[^，。,！？\s]{1,12}\s?是|我对[^，。,]{1,10}过敏|(?:我|她|他)(?:有|对)[^，。,]{0,8}(?:过敏|病)"
            r"|我(?:家|女儿|儿子|老婆|老公|爸|妈|妹妹|姐姐|弟弟|哥哥)[^，。,]{0,4}(?:有|叫|是|今年|在|升)"
            r"|我(?:现在)?在一家|我是做|(?:跳槽到|入职了?|加入了|搬到了?|换了(?:辆|台|个)?|拿到了?)[^，。,！？]{1,20}",
            re.I,
        ),
    ),
    (L, re.compile(r"^(?:always|never)\b|\bnever again\b|永远不要|千万别|一定要记得", re.I)),
]

_CHANGE = re.compile(
    r"\bnow\b|\binstead\b|\bswitched to\b|\bno longer\b|\banymore\b|\bchanged to\b"
    r"|\bmoved\b|\bjoined\b|\brelocated\b|\bgot (?:a|an|promoted)\b|\bagain\b|\bfinally\b"
    r"|现在|改用|改喝|改学|不再|换成|换了|搬到|跳槽|已经不|入职|戒了|不学了|拿到|升",
    re.I,
)
# Single-valued facts: a change to one replaces the other even with no shared words.
_TOPICS = [
    ("name", re.compile(r"\bmy name is\b|\bcall me\b|我叫|我的名字是", re.I)),
    ("home", re.compile(r"\blive in\b|\bbased in\b|\bmoved to\b|住在|搬到", re.I)),
    ("work", re.compile(r"\bwork (?:at|for|as|in)\b|\bjoined\b|工作|上班|跳槽|入职", re.I)),
]
# The rules' own list for "the same topic": function words plus change and liking words, which two
# statements share without being about one thing ("now", "prefer", "use"); not the shared EN_STOPWORDS.
_TOPIC_STOPWORDS = frozenset(
    "i i'm im me my mine a an the is am are was be to of in on at for with from and or but it its this that "
    "now instead switched no longer anymore changed not don't do really still also just very "
    "like love prefer enjoy hate dislike use using user".split()
)
_STOP_CJK = set("我你他她它的了是在不再现改换成也都很就还用要想喜欢爱讨厌")
_CJKISH = "\u3000-\u9fff\uf900-\ufaff\uff00-\uffef"  # CJK, kana, CJK and full-width punctuation
_CHUNK = re.compile(rf"[{_CJKISH}]{{1,4}}\s*|[^\s{_CJKISH}]+\s*|\s+")  # covers every character


# -- the tasks ---------------------------------------------------------------


def extract_candidates(messages: list[dict]) -> ExtractionResult:
    found: dict[str, Candidate] = {}
    for sentence in _user_sentences(messages):
        kind = classify(sentence)
        if kind is None:
            continue
        content = trimmed(sentence)
        key = normalise_content(content)
        if key and key not in found:
            found[key] = Candidate(content=content, kind=kind, importance=IMPORTANCE[kind], confidence=CONFIDENCE)
    return ExtractionResult(candidates=list(found.values())[:20])


def decide(items: list[CandidateWithNeighbours]) -> DecisionResult:
    """The trained change model (engine/learned/changes.py) where it is shipped for this embedder, else
    the rules below; an exact repeat is skipped either way."""
    from ..learned import changes
    from ..learned.model import usable

    model = usable(changes.NAME)
    seen: set[str] = set()
    decisions = []
    for i, item in enumerate(items):
        decisions.append(_decide_one(i, item, seen, model))
        seen.add(normalise_content(item.candidate.content))
    return DecisionResult(decisions=decisions)


def compact_summary(earlier: str, messages: list[dict]) -> str:
    """Extractive: the earlier summary and then the user's sentences, the beginning kept first."""
    sentences = [trimmed(s) for s in _user_sentences(messages)]
    joined = "；".join(sentences) if is_mostly_cjk(" ".join(sentences)) else "; ".join(sentences)
    return "; ".join(part for part in (earlier, joined) if part)[:COMPACT_CHARS]


def reply(messages: list[dict]) -> str:
    return _offline_reply(messages)


def stream_reply(messages: list[dict]) -> Iterator[str]:
    yield from _CHUNK.findall(reply(messages))


def promote(memories: Sequence[Memory]) -> list[Memory]:
    return [m for m in memories if m.importance >= PROMOTE_MIN_IMPORTANCE]


# -- the rules ---------------------------------------------------------------


def classify(sentence: str) -> MemoryKind | None:
    """The kind a user sentence would be stored as, or None when it is not memory material."""
    text = sentence.strip().replace("\u2019", "'")
    bare = text.rstrip(" .!。！；;")
    if len(bare) < 3 or len(bare) > MAX_SENTENCE_CHARS or contains_sensitive(text):
        return None
    if is_question(text):
        return None
    for kind, pattern in _RULES:
        if pattern.search(bare):
            return kind
    return None


def _user_sentences(messages: list[dict]) -> Iterator[str]:
    """The user's sentences; one that points back ("run them through proxy-env", "这个要先备份") is
    joined to the sentence before it (as written in one message, with a space across two), so the memory
    keeps what "them" is."""
    before, before_start = "", None  # the user's previous sentence, in this message or their previous one
    for message in messages:
        if message.get("role") != "user":
            continue
        content = str(message.get("content") or "")
        for span in sentence_spans(content):
            if before and POINTS_BACK.search(span.text) and len(before) + len(span.text) <= MAX_SENTENCE_CHARS:
                yield content[before_start : span.end] if before_start is not None else f"{before} {span.text}"
            else:
                yield span.text
            before, before_start = span.text, span.start
        before_start = None


def _decide_one(i: int, item: CandidateWithNeighbours, seen: set[str], model=None) -> Decision:
    candidate = item.candidate
    key = normalise_content(candidate.content)
    if key in seen:
        return Decision(candidate_index=i, action=DecisionAction.SKIP, reason="repeated in this batch")
    for neighbour in item.neighbours:
        if normalise_content(neighbour.content) == key:
            return Decision(
                candidate_index=i, action=DecisionAction.SKIP, target_id=neighbour.id, reason="already known"
            )
    if model is not None and item.neighbours:
        return _decide_learned(model, i, item)
    if _CHANGE.search(candidate.content):
        for neighbour in item.neighbours:
            # A goal reached becomes a fact: another kind counts when the two are close in meaning.
            related = neighbour.kind == candidate.kind or (neighbour.similarity or 0) >= CROSS_KIND_SIMILARITY
            if (
                related
                and _same_topic(candidate.content, neighbour.content)
                and may_replace(candidate.content, neighbour.content)
            ):
                return Decision(
                    candidate_index=i, action=DecisionAction.UPDATE, target_id=neighbour.id, reason="stated a change"
                )
    return Decision(candidate_index=i, action=DecisionAction.ADD, reason="new")


def rules_see_a_change(new: str, new_kind: str, old: str, old_kind: str, cosine: float) -> bool:
    """The rules' change, for the learned decision to fall back on: a change word, and the same slot (home,
    work, a shared word, a new product for the same use) of a memory of the same kind or this close."""
    return (
        bool(_CHANGE.search(new))
        and (old_kind == new_kind or cosine >= CROSS_KIND_SIMILARITY)
        and _same_topic(new, old)
    )


def _decide_learned(model, i: int, item: CandidateWithNeighbours) -> Decision:
    """The trained change model's verdict on the candidate against its neighbours."""
    import numpy as np

    from memoryapp.providers.embeddings import get_embedder

    from ..learned import changes

    candidate, neighbours = item.candidate, item.neighbours
    vectors = np.asarray(get_embedder().embed([candidate.content] + [n.content for n in neighbours]))
    existing = [changes.Existing(n.content, n.kind.value, v) for n, v in zip(neighbours, vectors[1:])]
    verdict = changes.choose(
        model, candidate.content, candidate.kind.value, vectors[0], existing, rules=rules_see_a_change
    )
    if verdict.label == changes.REPLACES and verdict.index is not None:
        return Decision(
            candidate_index=i,
            action=DecisionAction.UPDATE,
            target_id=neighbours[verdict.index].id,
            reason=f"stated a change (learned, p={verdict.probability:.2f})",
        )
    if verdict.label == changes.RESTATES and verdict.index is not None:
        return Decision(
            candidate_index=i,
            action=DecisionAction.SKIP,
            target_id=neighbours[verdict.index].id,
            reason=f"already known (learned, p={verdict.probability:.2f})",
        )
    if verdict.doubt is not None:
        return Decision(
            candidate_index=i,
            action=DecisionAction.ADD,
            ask_about=neighbours[verdict.doubt].id,
            reason="new; it may replace a memory of its slot: the user is asked",
        )
    return Decision(candidate_index=i, action=DecisionAction.ADD, reason="new")


def _same_topic(a: str, b: str) -> bool:
    # Guard against superseding an unrelated memory just because it was the nearest one.
    for _name, pattern in _TOPICS:
        if pattern.search(a) and pattern.search(b):
            return True
    return bool(_topic_tokens(a) & _topic_tokens(b)) or _new_value_for_same_slot(a, b)


_PRODUCT = re.compile(r"[A-Za-z][A-Za-z0-9+#.\-]*")


def _new_value_for_same_slot(new: str, old: str) -> bool:
    """Both name a product (a Latin-script name in Chinese text) and the new one says nothing else the
    old one does not: the same slot with a new value, not a new topic ("我现在用 Rust 写后端" adds 后端)."""
    if not (HAN.search(new) and _PRODUCT.search(new) and _PRODUCT.search(old)):
        return False
    cjk = lambda text: {w for w in _topic_tokens(text) if HAN.search(w)}  # noqa: E731
    return cjk(new) <= cjk(old)


def _topic_tokens(text: str) -> set[str]:
    text = normalise_content(text)
    words = {w for w in re.findall(r"[a-z0-9][a-z0-9+#'\-]*", text) if len(w) > 1 and w not in _TOPIC_STOPWORDS}
    for run in HAN_RUN.findall(text):
        words |= {run[j : j + 2] for j in range(len(run) - 1) if not (set(run[j : j + 2]) & _STOP_CJK)}
    return words


# A temporary chat, or a user whose memory is off: the chat's prompt carries this line (context.py), so a
# model never claims to remember and the offline reply says memory is off instead of "no memory matches".
MEMORY_OFF_LINE = "Memory is off in this chat: no memories are shown, and nothing said here is kept."


OFFLINE_HEAD_ZH = "尚未配置语言模型，所以我无法真正回答（离线模式；设置 OPENAI_BASE_URL 或 OPENAI_API_KEY 即可接入）。"
OFFLINE_HEAD_EN = (
    "No language model is configured, so I can't give a real answer "
    "(offline mode; set OPENAI_BASE_URL or OPENAI_API_KEY to connect one)."
)


def is_offline_notice(text: str) -> bool:
    """The offline reply's own words: the app's notice, never something the user said or should keep."""
    return text.lstrip().startswith((OFFLINE_HEAD_EN, OFFLINE_HEAD_ZH))


def _offline_reply(messages: list[dict]) -> str:
    memories: list[str] = []
    memory_off = False
    for message in messages:
        if message.get("role") == "system":
            system = str(message.get("content") or "")
            memories += parse_memories_block(system)
            memory_off = memory_off or MEMORY_OFF_LINE in system.split("<", 1)[0]  # the prompt's own text, not a block
    last_user = next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"), "")
    if message_language(last_user) == ZH:  # a Chinese message naming Latin-script products is Chinese
        head = OFFLINE_HEAD_ZH
        tail = "\n记忆中：\n" + "\n".join(f"- {m}" for m in memories) if memories else "\n没有与这条消息相关的记忆。"
        if memory_off:
            tail = "\n这个对话没有开启记忆：不查看、也不保存任何记忆。"
    else:
        head = OFFLINE_HEAD_EN
        tail = (
            "\nFrom memory:\n" + "\n".join(f"- {m}" for m in memories)
            if memories
            else ("\nNo stored memories match this message.")
        )
        if memory_off:
            tail = "\nMemory is off in this chat: it neither looks at nor keeps memories."
    return head + tail
