"""Whether a sentence asks something: one vocabulary, read by the extraction rules and model (a question
is not memory material: engine/llm/defaults.py, engine/learned/extraction.py), chat episodes (episode_rules.py)
and the chat's relevance model (a message that asks: engine/learned/relevance.py, one of its features).

Narrow on purpose: an English question opens with an asking word or ends with a question mark; a Chinese
one ends on a particle (吗, 呢, 嘛) or holds a form that only asks (是不是, 能不能, 为什么). Broader words
also open statements: "can't stand cilantro", "我什么都吃", "我有几个朋友在深圳", "哪里都行".
"""

from __future__ import annotations

import re

from memoryapp.lib.sentences import pieces

ENDS_ASKING = re.compile(r"[?？]\s*\W*$")
QUESTION_EN = re.compile(
    r"^(?:what|how|why|who|where|when|which|can you|could you|would you|will you|do you|does|did you"
    r"|is there|are there|should i)\b",
    re.I,
)
QUESTION_ZH = re.compile(r"(?:吗|呢|嘛)$|是不是|能不能|可不可以|为什么")
_STRIPPED = " .!。！；;,，"


def is_question(text: str) -> bool:
    """One sentence or clause: does it ask?"""
    bare = text.strip().replace("\u2019", "'").rstrip(_STRIPPED)
    return bool(ENDS_ASKING.search(text) or QUESTION_EN.search(bare) or QUESTION_ZH.search(bare))


def asks(message: str) -> bool:
    """A whole message: does any of its sentences or clauses ask?"""
    # A question often sits inside a longer message ("btw 我这个月的 deadline 还来得及吗，还剩两周，帮我排个计划").
    return any(is_question(piece) for piece in pieces(message))


# Whether a message about a task asks rather than states, for a chat's working memory (engine/chat_state/
# rules.py): wider than `is_question`, since a task detail said in a question ("去哪玩好？", "should we fly
# on Friday?") is not settled yet, while a statement wrongly taken for a question only leaves a slot unkept.
ASKS_WIDER_EN = re.compile(
    r"^\s*(?:what|when|where|which|who|whom|whose|why|how|do|does|did|is|are|was|were|should|shall|have|has)\b",
    re.I,
)
ASKS_WIDER_ZH = re.compile(r"[吗呢么嘛][\s.!。]*$|什么|哪|几[号点天个]|多少|怎么|是否|有没有|要不要|啥|如何|觉得")


def asks_about_task(text: str) -> bool:
    return "?" in text or bool(ASKS_WIDER_EN.search(text) or ASKS_WIDER_ZH.search(text))


# What else asks for an answer without a question's form: a request ("help me plan…", "帮我写个…",
# "recommend a few dishes"), or a Chinese question word with no particle ("有什么办法", "去哪玩好").
# Wider than a question: a feature of the chat's relevance model, never a reason to drop a statement.
REQUEST_EN = re.compile(
    r"\b(?:help me|help with|recommend|suggest|give me|tell me|show me|write|draft|make me|plan|list|remind me"
    r"|find me|explain|summari[sz]e|translate|check|fix|prepare|get ready)\b"
    r"|^\W*(?:\w+[,.]\s+)?(?:can|could|should|shall|do|am|is|are|would|will) (?:i|we|you|it|that|this)\b",
    re.I,
)
REQUEST_ZH = re.compile(
    r"帮我|帮忙|给我|替我|推荐|建议|安排|规划|排个|排一下|列个|写个|写一|设计|想想|怎么|什么|哪|多少"
    r"|几点|行不行|好不好|要不要|有没有|可以吗|会不会|对不对"
)


def wants(message: str) -> bool:
    """A whole message: does it ask a question or make a request?"""
    return asks(message) or bool(REQUEST_EN.search(message) or REQUEST_ZH.search(message))


# What the speaker is about to do ("I'm about to start docker compose…", "我准备启动预发环境…"): not a
# question, but the moment a lesson or a preference about it helps. Read by the chat's relevance gate only.
ABOUT_TO_EN = re.compile(r"\b(?:about to|going to|gonna|heading (?:in)?to|kicking off|getting ready to)\b", re.I)
ABOUT_TO_ZH = re.compile(r"准备|打算|马上要|正要|这就要|要开始")


def announces(message: str) -> bool:
    """A whole message: does it say what the speaker is about to do?"""
    return bool(ABOUT_TO_EN.search(message) or ABOUT_TO_ZH.search(message))
