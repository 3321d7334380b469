"""An episode with no model: the user's own sentences that tell what happened or was settled in a chat.

An episode is worth keeping only for what the typed memories of the same chat do not hold: a plan
discussed, a decision taken, an event told ("We decided to ship the beta on Friday", "昨天面试结束了").
So a sentence is chosen when all of these hold, each a rule a user can check:
- the user said it (the offline assistant's replies say nothing about the user), and it is not a question;
- it carries a plan, decision or event cue, in English or Chinese (`_CUES`: "decided", "next week",
  "yesterday", "决定", "下周", "昨天" ...), and is not a closing remark on the assistant's advice
  ("Thanks, I'll try that tomorrow", "好的，我明天试试");
- no typed memory learnt from the chat says it already (the same words, or one inside the other);
- it says nothing secret (`contains_sensitive`), and it is a sentence, not a pasted blob.
At most `MAX_SENTENCES` are kept, in the order said, whole: a sentence that would not fit is left out,
never cut. Nothing chosen: no episode, so a short chat that only yielded typed memories leaves none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from memoryapp.lib.scripts import HAN
from memoryapp.lib.sentences import sentences

from ..questions import is_question
from ..sensitive import contains_sensitive
from .schemas import normalise_content

MAX_SENTENCES = 3
MAX_CHARS = 400  # the episode, its sentences together
MIN_SENTENCE_CHARS = 6
MAX_SENTENCE_CHARS = 300  # longer is a pasted blob, not something said


# Plan, decision, event: the three things a chat can settle that a standing fact about the user is not.
_CUES = re.compile(
    # a decision
    r"\b(?:decided|decide to|we(?:'ll| will) go with|going with|settled on|agreed|chose|picked|opted)\b"
    r"|\blet's (?:go with|use|do|ship|move|keep|try|start)\b"
    # a plan, with when
    r"|\b(?:we|I)(?:'re| are|'m| am) (?:going to|about to)\b|\b(?:we|I)(?:'ll| will| plan to| intend to)\b"
    r"|\b(?:tomorrow|tonight|next (?:week|month|year|monday|tuesday|wednesday|thursday|friday|weekend|sprint)"
    r"|this (?:weekend|friday|afternoon|evening)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|by (?:monday|tuesday|wednesday|thursday|friday|the end of)|deadline|scheduled|booked)\b"
    # an event, told
    r"|\b(?:yesterday|last (?:week|night|month|year|monday|friday|weekend)|this morning|earlier today|just now)\b"
    r"|\b(?:happened|went (?:to|well|badly)|finished|launched|shipped|released|migrated|broke|crashed|failed"
    r"|passed|got (?:the|an?|my) (?:offer|job|results?)|signed|moved (?:the|our)|rolled back|deployed)\b"
    # 中文：决定、计划（带时间）、经过
    r"|决定|定了|说好|商量好|选了|就用|改成|敲定|同意了"
    r"|明天|后天|今晚|下周|下个月|下礼拜|周[一二三四五六日末]|月底|年底前|截止|安排了|约了|预订|打算在"
    r"|昨天|前天|上周|上个月|刚才|刚刚|今天早上|今早|已经(?:上线|发布|完成|搬|交|提交|面试)|发生|上线了|发布了"
    r"|完成了|搞定了|通过了|面试了|搬家了|出问题|崩了|回滚了|签了",
    re.I,
)


# A closing remark about the assistant's advice ("Thanks, I'll try that tomorrow", "好的，我明天试试") has a
# plan cue and no plan: what is tried is in the chat, not in the sentence.
_CLOSER = re.compile(
    r"\b(?:I|we)(?:'ll| will| am going to|'m going to) (?:try|do|check|test|use|look into|give|read) (?:it|that|this|them"
    r"|those)\b(?: out| a try| a shot| later| tomorrow| tonight| next week)?\W*$"
    r"|^(?:好的?|那|嗯|谢谢)?[，,]?(?:那)?我(?:们)?(?:明天|回头|晚点|待会儿?|下周)?(?:再)?(?:试试|看看|试一下|看一下|研究一下)",
    re.I,
)


def episode_sentences(messages: Iterable[dict], learnt: Iterable[str] = ()) -> list[str]:
    """The user's sentences worth an episode, whole and in order: plan, decision or event cues, not
    questions, not already one of the chat's typed memories (`learnt`); [] when there are none."""
    known = [k for k in (normalise_content(text) for text in learnt) if k]
    chosen: list[str] = []
    seen: set[str] = set()
    used = 0
    for sentence in _user_sentences(messages):
        key = normalise_content(sentence)
        if not key or key in seen or not _worth_telling(sentence) or _already_learnt(key, known):
            continue
        if used + len(sentence) + 1 > MAX_CHARS:
            continue  # left out whole, never cut
        seen.add(key)
        chosen.append(sentence)
        used += len(sentence) + 1
        if len(chosen) == MAX_SENTENCES:
            break
    return chosen


def episode_text(messages: Iterable[dict], learnt: Iterable[str] = ()) -> str:
    """The episode: the chosen sentences, each ending as a sentence does; "" when none was chosen."""
    text = ""
    for sentence in map(_as_sentence, episode_sentences(messages, learnt)):
        text += sentence if not text or text.endswith(("。", "！")) else " " + sentence  # Chinese takes no space
    return text


def _user_sentences(messages: Iterable[dict]) -> Iterator[str]:
    for message in messages:
        if message.get("role") != "user":
            continue
        for said in sentences(str(message.get("content") or "")):
            sentence = " ".join(said.split())
            if sentence:
                yield sentence


def _worth_telling(sentence: str) -> bool:
    bare = sentence.rstrip(" .!。！；;")
    if not MIN_SENTENCE_CHARS <= len(bare) <= MAX_SENTENCE_CHARS:
        return False
    if is_question(sentence) or _CLOSER.search(bare) or contains_sensitive(sentence):
        return False
    return bool(_CUES.search(bare))


def _already_learnt(key: str, known: list[str]) -> bool:
    # The typed memory is the user's own sentence (or a clause of it): the same words, or one in the other.
    return any(key == k or k in key or key in k for k in known)


def _as_sentence(sentence: str) -> str:
    sentence = sentence.rstrip(" ;；")
    if sentence.endswith((".", "!", "。", "！")):
        return sentence
    return sentence + ("。" if HAN.match(sentence[-1:]) else ".")
