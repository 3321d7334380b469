"""What a chat turn hands a language model (issues #33, #43): a wider, ranked list than the offline choice.

Offline the reply is the memories themselves, so the choice must be precise (relevance.choose: at most 3,
over its threshold). A model reads what it is handed and marks what it used (engine/chat/citations.py),
so a memory handed in vain costs tokens, not a wrong chip. The model path keeps the message gate (small
talk and general questions are handed nothing: relevance.message_needs_memory, and names_in for a
question about someone close), then hands the relevance model's choice first and the rest of recall's
CANDIDATES nearest by cosine after it. Chosen on bench.chat's dev personas,
each store padded with 500 distractor memories (`python -m bench.chat --split dev --locomo 0
--distractors 500 --model-path`; docs/benchmarks/chat.md): past the relevance model's few picks, its
probability ranked the needed memories lower than the cosine did (need-hit 0.55 against 0.60 at the
same 380 tokens per turn).

The list (issue #43): the relevance model's choice in full, then one line per further memory (its first
words, ONE_LINE_TOKENS at most, cut with "…"), so the same tokens carry three times as many candidates:
the model marks what it used, and only those become chips. Capped by CHAT_MODEL_MEMORY_LINES lines and
CHAT_MODEL_MEMORY_TOKENS tokens (settings); the figures behind the defaults: docs/recall.md.
"""

from __future__ import annotations

import re

from django.conf import settings

from memoryapp.lib.scripts import CJK

from ..learned import relevance
from ..text import count_tokens

CANDIDATES = 100  # what recall proposes (its vector retriever's own limit)
# A further candidate's line: enough words to recognise the memory by (on dev, 10 kept more needed memories
# within 400 tokens than 12 or 15: 0.64 against 0.60 and 0.58).
ONE_LINE_TOKENS = 10
ELLIPSIS = "…"
# Where a shortened line would rather end: after a clause (a comma or stop in either language).
_CLAUSE_END = re.compile(r"[,;:，。；：！？!?、]")


def memory_tokens() -> int:
    """The most a turn's memories may cost a model (the window's memory budget is larger)."""
    return settings.CHAT_MODEL_MEMORY_TOKENS


def memory_lines() -> int:
    """The most memories a model is handed in one turn."""
    return settings.CHAT_MODEL_MEMORY_LINES


def one_liner(content: str, tokens: int = ONE_LINE_TOKENS) -> str:
    """`content` in at most `tokens` tokens (engine/text.py count_tokens): whole when it fits, else its
    first words, at a clause's end when one falls in the second half, never inside a Latin word."""
    text = " ".join(content.split())
    if count_tokens(text) <= tokens:
        return text
    budget = tokens - 1  # the ellipsis
    end = cjk = other = 0
    for char in text:  # the longest prefix that fits, counted as count_tokens counts
        cjk, other = (cjk + 1, other) if CJK.match(char) else (cjk, other + 1)
        if cjk + (other + 3) // 4 > budget:
            break
        end += 1
    head = text[:end]
    clause = max((m.end() for m in _CLAUSE_END.finditer(head)), default=0)
    if clause > end // 2:
        head = head[:clause]
    elif end < len(text) and not CJK.match(text[end]) and text[end] != " " and " " in head:
        head = head[: head.rindex(" ")]  # not inside a word
    return head.rstrip(" ,;:，。；：、") + ELLIPSIS


def handed(contents: list[str], in_full: int) -> list[str]:
    """The lines a model is handed, best first: the first `in_full` memories whole, then one line each,
    as many as memory_lines() and memory_tokens() allow (a line is never cut to fit the last tokens)."""
    lines, used = [], count_tokens("<memories>\n</memories>")
    for index, content in enumerate(contents[: memory_lines()]):
        line = " ".join(content.split()) if index < in_full else one_liner(content)
        cost = count_tokens(line) + 2  # its number
        if used + cost > memory_tokens():
            break
        lines.append(line)
        used += cost
    return lines


def ranked(
    model, message: str, previous_user_messages: list[str], query_vector, candidates: list[relevance.Candidate]
) -> tuple[list[int], int]:
    """Indexes into `candidates` (recall's, nearest first by cosine), best first, and how many of them the
    relevance model chose (handed in full): none when the message gate finds the message needs no memory
    (only those naming someone it names, then), else the choice followed by the rest by cosine. The
    caller cuts the list (handed)."""
    allowed = list(range(len(candidates)))
    if not relevance.message_needs_memory(model, query_vector, message):
        names = relevance.names_in(message)
        allowed = [i for i in allowed if names and relevance.shares_a_name(names, candidates[i].content)]
    if not allowed:
        return [], 0
    chosen = [i for i, _ in relevance.choose(model, message, previous_user_messages, query_vector, candidates)]
    chosen = [i for i in chosen if i in allowed]
    rest = sorted((i for i in allowed if i not in chosen), key=lambda i: (-candidates[i].cosine, i))
    return [*chosen, *rest], len(chosen)
