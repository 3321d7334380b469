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
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from ..recall.past import PastReference, named_before, past_reference
from ..text import (
    OTHER_PEOPLE_EN,
    OTHER_PEOPLE_ZH,
    leans_on_previous,
    names_someone_else,
    plain,
    speaks_of_user,
    user_has_a_part,
)

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


@dataclass(frozen=True)
class ChatQuery:
    text: str  # what recall searches with
    about_user: bool  # the user speaks of themselves: personal memory is likelier to be needed
    past: PastReference | None = None  # the message asks what was true then (past.py)
    before: str | None = None  # "what did I prefer before React?": what it names ("React"; chain.py)


def is_small_talk(message: str) -> bool:
    """True when the message is only greetings, thanks, acknowledgement or laughter."""
    words = plain(message)
    if not words.strip():
        return True  # only punctuation or emoji
    return not _SMALL_TALK_RE.sub(" ", words).strip(" '")


# Someone outside the user's household (engine/text.py OTHER_PEOPLE_*) as the subject, the user not in the
# question ("My neighbour wants to start running, any tips?", "我朋友想学游泳，怎么入门？"): the user's own
# hobbies are not what it needs. Elsewhere in the message, the relevance model weighs it (someone_else).
_SOMEONE_ELSE_EN = re.compile(
    rf"^\W*(?:my|our|a)\s+(?:\w+\s+)?(?:{OTHER_PEOPLE_EN})\b(?!')(?P<rest>.*)",
    re.I | re.S,
)
_SOMEONE_ELSE_ZH = re.compile(rf"^\W*(?:我的?|我们的?)?(?:{OTHER_PEOPLE_ZH})(?P<rest>.*)", re.S)


def about_someone_else(message: str) -> bool:
    """The message asks on behalf of a friend, neighbour, colleague..., and says nothing of the user's own
    part ("my friend and I...", "我同事推荐我..." do)."""
    found = _SOMEONE_ELSE_EN.match(message) or _SOMEONE_ELSE_ZH.match(message)
    if found is not None and not speaks_of_user(found.group("rest")):
        return True
    # Elsewhere in the message ("a guy on my team says…", "帮我表姐问一下…"), with nothing of the user.
    return names_someone_else(message) and not user_has_a_part(message)


def chat_recall_query(message: str, previous_user_messages: list[str], now: datetime | None = None) -> ChatQuery | None:
    """What a chat turn recalls with, or None when the turn recalls nothing (small talk).

    `previous_user_messages`: the user's own earlier messages in this chat, oldest first; the assistant's
    replies are not passed, so its words never count as evidence of what the user needs."""
    if is_small_talk(message) or about_someone_else(message):
        return None
    text = message
    if previous_user_messages and leans_on_previous(message):
        text = f"{message}\n{previous_user_messages[-1]}"
    return ChatQuery(text, speaks_of_user(text), past_reference(message, now or timezone.now()), named_before(message))
