"""What a chat turn hands a language model (issue #33): a wider, ranked set than the offline choice.

Offline the reply is the memories themselves, so the gate must be precise (relevance.choose: at most 3,
over its threshold). A model reads what it is handed and marks what it used (engine/chat/citations.py),
so a memory handed in vain costs tokens, not a wrong chip: the model path keeps the message gate (small
talk and general questions are handed nothing) but takes up to LIMIT of the relevance model's ranking,
down to FLOOR. Both were chosen on bench.chat's dev personas with 500 distractor memories each
(`python -m bench.chat --split dev --model-path --distractors 500`; docs/benchmarks.md).
"""
from __future__ import annotations

import numpy as np

from . import relevance
from .chat_query import leans_on_previous

LIMIT = 8  # memories a model is handed at most
FLOOR = 0.05  # the relevance model's probability below which a candidate is not handed
CANDIDATES = 16  # what recall proposes for the ranking


def ranked(model, message: str, previous_user_messages: list[str], query_vector,
           candidates: list[relevance.Candidate], *, limit: int = LIMIT, floor: float = FLOOR) -> list[int]:
    """Indexes into `candidates`, best first, at most `limit`. As relevance.choose decides which may be
    handed at all (a message the gate finds needs no memory gets only those naming someone it names), but
    ranks by the model's probability down to `floor` instead of its threshold."""
    if not candidates:
        return []
    need = relevance.needs_memory(*relevance.part(model, "message"), query_vector)
    allowed = list(range(len(candidates)))
    if not relevance.message_needs_memory(model, query_vector, message):
        names = relevance.names_in(message)
        allowed = [i for i, c in enumerate(candidates) if names and relevance.shares_a_name(names, c.content)]
        need = 1.0
    if not allowed:
        return []
    leans = bool(previous_user_messages) and leans_on_previous(message)
    shape = relevance.MessageShape.of(message, leans, need, query_vector)
    scores = np.asarray(model.yes(relevance.pair_features(shape, candidates)))
    kept = sorted((i for i in allowed if scores[i] >= floor), key=lambda i: (-scores[i], i))
    return kept[:limit]
