"""What a chat turn recalls with (DESIGN flow 1): the new message leads; an earlier turn of the user's
helps only where the message leans on it ("ok, go with the first one", "那周末呢？"); the assistant's
own words are never evidence; small talk ("thanks!", "好的", "哈哈") recalls nothing. A message that
speaks of the user ("I", "my", "我") asks for personal memory more readily than one about the world
("what's the capital of Australia?"), and the chat's gate is stricter for the latter (recipes.py).

No model runs here: small talk is a short bilingual list of whole-message phrases, and leaning is a
short message holding a word that points back. Named scenarios in tests/unit/engine/test_chat_query.py.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime

import jieba
from django.utils import timezone

from ..recall.past import PastReference, named_before, past_reference
from ..text import EN_STOPWORDS, ZH_STOPWORDS

# Whole messages that carry no request: greetings, thanks, acknowledgements, laughter, goodbyes.
# A message is small talk when nothing is left after removing these (longest first).
SMALL_TALK_EN = (
    "good morning",
    "good afternoon",
    "good evening",
    "good night",
    "gn",
    "morning",
    "evening",
    "hi",
    "hello",
    "hey",
    "hiya",
    "yo",
    "sup",
    "howdy",
    "thank you so much",
    "thank you",
    "thanks a lot",
    "thanks so much",
    "thanks",
    "thx",
    "ty",
    "tysm",
    "cheers",
    "appreciate it",
    "ok",
    "okay",
    "okey",
    "k",
    "kk",
    "cool",
    "nice",
    "great",
    "awesome",
    "perfect",
    "sounds good",
    "got it",
    "gotcha",
    "noted",
    "understood",
    "makes sense",
    "sure",
    "alright",
    "all right",
    "right",
    "yes",
    "yeah",
    "yep",
    "yup",
    "no",
    "nope",
    "nah",
    "fine",
    "lol",
    "lmao",
    "rofl",
    "haha",
    "hahaha",
    "hehe",
    "wow",
    "oh",
    "ah",
    "hmm",
    "bye",
    "goodbye",
    "see you",
    "see ya",
    "cya",
    "later",
    "take care",
    "np",
    "no problem",
    "no worries",
    "you're welcome",
    "youre welcome",
    "welcome",
    "good job",
    "well done",
    "love it",
    "that's great",
    "thats great",
    "very good",
    "good",
    "so",
    "and",
    "you",
    "too",
    "again",
    "much",
    "a lot",
    "very",
    "really",
    "man",
    "dude",
    "buddy",
    "there",
    "all",
    "everyone",
    "you're the best",
    "youre the best",
    "you rock",
    "aw",
    "aww",
    "night",
    "nite",
    "talk tomorrow",
    "talk later",
    "talk soon",
    "ttyl",
    "brb",
    "exactly",
    "true",
    "indeed",
    "agreed",
    "same",
    "omg",
)
SMALL_TALK_ZH = (
    "早上好",
    "上午好",
    "中午好",
    "下午好",
    "晚上好",
    "晚安",
    "早安",
    "你好",
    "您好",
    "大家好",
    "嗨",
    "哈喽",
    "哈罗",
    "在吗",
    "在不在",
    "早",
    "谢谢你",
    "谢谢啦",
    "谢谢",
    "多谢",
    "谢啦",
    "谢了",
    "感谢",
    "笑死我了",
    "笑死",
    "有道理",
    "说得对",
    "确实",
    "辛苦了",
    "好的",
    "好滴",
    "好嘞",
    "好吧",
    "好",
    "嗯嗯",
    "嗯",
    "哦哦",
    "哦",
    "噢",
    "行吧",
    "行",
    "可以",
    "收到",
    "明白了",
    "明白",
    "知道了",
    "了解",
    "懂了",
    "没问题",
    "没事",
    "不客气",
    "不错",
    "太好了",
    "太棒了",
    "棒",
    "厉害",
    "牛",
    "对的",
    "对",
    "是的",
    "是",
    "再见",
    "拜拜",
    "回头见",
    "下次见",
    "哈哈",
    "呵呵",
    "嘿嘿",
    "嘻嘻",
    "哇",
    "啊",
    "呀",
    "啦",
    "吧",
    "呢",
    "了",
    "哈",
    "的",
    "非常",
    "很",
    "太",
    "真",
    "你",
    "我",
    "ok",
    "okay",
)
_SMALL_TALK = sorted({*SMALL_TALK_EN, *SMALL_TALK_ZH}, key=len, reverse=True)
_SMALL_TALK_RE = re.compile("|".join((rf"\b{re.escape(p)}\b" if p.isascii() else re.escape(p)) for p in _SMALL_TALK))

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


@dataclass(frozen=True)
class ChatQuery:
    text: str  # what recall searches with
    about_user: bool  # the user speaks of themselves: personal memory is likelier to be needed
    past: PastReference | None = None  # the message asks what was true then (past.py)
    before: str | None = None  # "what did I prefer before React?": what it names ("React"; chain.py)


def _plain(text: str) -> str:
    """Case-folded, NFKC, punctuation and symbols (emoji included) as spaces."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    return "".join(ch if ch.isalnum() or ch in " '" else " " for ch in text)


def is_small_talk(message: str) -> bool:
    """True when the message is only greetings, thanks, acknowledgement or laughter."""
    plain = _plain(message)
    if not plain.strip():
        return True  # only punctuation or emoji
    return not _SMALL_TALK_RE.sub(" ", plain).strip(" '")


def content_words(message: str) -> list[str]:
    """The message's words less function words (jieba's precise cut: one word per word, not its parts)."""
    return [
        w
        for w in (w.strip() for w in jieba.cut(_plain(message)))
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
    words = set(re.findall(r"[a-z']+", _plain(message)))
    return bool(words & POINTING_EN) or any(marker in message for marker in POINTING_ZH)


def speaks_of_user(text: str) -> bool:
    text = unicodedata.normalize("NFKC", text).replace("’", "'")
    # "US" in capitals is the country, not "us".
    words = {w.casefold() for w in re.findall(r"[A-Za-z']+", text) if w != "US"}
    return bool(words & FIRST_PERSON_EN) or any(marker in text for marker in FIRST_PERSON_ZH)


def chat_recall_query(message: str, previous_user_messages: list[str], now: datetime | None = None) -> ChatQuery | None:
    """What a chat turn recalls with, or None when the turn recalls nothing (small talk).

    `previous_user_messages`: the user's own earlier messages in this chat, oldest first; the assistant's
    replies are not passed, so its words never count as evidence of what the user needs."""
    if is_small_talk(message):
        return None
    text = message
    if previous_user_messages and leans_on_previous(message):
        text = f"{message}\n{previous_user_messages[-1]}"
    return ChatQuery(text, speaks_of_user(text), past_reference(message, now or timezone.now()), named_before(message))
