"""What a chat turn hands a language model (issue #33): a wider, ranked set than the offline choice.

Offline the reply is the memories themselves, so the choice must be precise (relevance.choose: at most 3,
over its threshold). A model reads what it is handed and marks what it used (engine/chat/citations.py),
so a memory handed in vain costs tokens, not a wrong chip. The model path keeps the message gate (small
talk and general questions are handed nothing: relevance.message_needs_memory, and names_in for a
question about someone close), then hands the relevance model's choice first and the rest of recall's
CANDIDATES nearest by cosine after it, as many as MEMORY_TOKENS holds. Chosen on bench.chat's dev personas,
each store padded with 500 distractor memories (`python -m bench.chat --split dev --locomo 0
--distractors 500 --model-path`; docs/benchmarks/chat.md): past the relevance model's few picks, its
probability ranked the needed memories lower than the cosine did (need-hit 0.55 against 0.60 at the
same 380 tokens per turn).
"""

from __future__ import annotations

from ..learned import relevance

CANDIDATES = 100  # what recall proposes (its vector retriever's own limit)
MEMORY_TOKENS = 700  # the most a turn's memories may cost a model (the window's memory budget is larger)


def ranked(
    model, message: str, previous_user_messages: list[str], query_vector, candidates: list[relevance.Candidate]
) -> list[int]:
    """Indexes into `candidates` (recall's, nearest first by cosine), best first: none when the message
    gate finds the message needs no memory (only those naming someone it names, then), else the relevance
    model's choice followed by the rest by cosine. The caller cuts the list to MEMORY_TOKENS."""
    allowed = list(range(len(candidates)))
    if not relevance.message_needs_memory(model, query_vector, message):
        names = relevance.names_in(message)
        allowed = [i for i in allowed if names and relevance.shares_a_name(names, candidates[i].content)]
    if not allowed:
        return []
    chosen = [i for i, _ in relevance.choose(model, message, previous_user_messages, query_vector, candidates)]
    rest = sorted((i for i in allowed if i not in chosen), key=lambda i: (-candidates[i].cosine, i))
    return [*chosen, *rest]
