"""Named recall presets. Entry points default to one; derive variants with `model_copy(update=...)`."""

from __future__ import annotations

from django.db.models import TextChoices
from django.utils.translation import gettext_lazy as _

from .config import (
    FullTextConfig,
    FusionConfig,
    GraphConfig,
    RecallConfig,
    ScoringConfig,
    TrigramConfig,
    VectorConfig,
)

# The chat prompt: the top 3 whose meaning is close to the message, ranked by meaning, importance and
# recency. Ranked by rank fusion instead, the words BM25 finds push aside what a message implies
# ("a restaurant tonight?" -> "vegetarian"). The gate depends on the message (engine/chat/chat_query.py):
# one that speaks of the user takes memories at cosine >= 0.20; one about the world ("what's the capital
# of Australia?") only at >= 0.40. A shared word is not evidence by itself ("the cat command in Linux" is
# not about the user's cat). Calibrated on bench.chat's dev turns with the multilingual embedder
# (docs/benchmarks/chat.md, bench.chat). Ranked and gated by meaning, full text and trigram could only add
# candidates the vector search already ranks: they are off, which spares the chat turn their cost.
# A chat episode ("[date] We decided to move staging to Kubernetes next week.") meets a higher bar,
# cosine >= 0.35 (the episode rule, RecallConfig.episode_min_cosine): it tells what one chat settled, and
# is handed to a turn only when the turn is clearly about that. With the multilingual embedder, turns
# asking about the plan scored 0.35-0.54 against its episode; "I'm about to start docker compose for the
# staging stack" scored 0.21-0.33 against episodes of other chats (a music "compose workflow", a new
# laptop, running again), which the typed memories' 0.20 gate let through.
RECALL_CHAT = RecallConfig(
    limit=3,
    threshold=0.0,
    min_cosine=0.20,
    found_is_evidence=False,
    full_text=FullTextConfig(enabled=False),
    trigram=TrigramConfig(enabled=False),
    fusion=FusionConfig(rank_share=0.0),
    episode_min_cosine=0.35,
)
RECALL_CHAT_GENERAL = RECALL_CHAT.model_copy(update={"min_cosine": 0.40})
# With the trained relevance model (engine/learned/relevance.py) the gates above are the fallback: recall
# proposes the 10 nearest by meaning, ungated, and the model keeps what the turn needs (at most 3).
RECALL_CHAT_CANDIDATES = RECALL_CHAT.model_copy(update={"limit": 10, "min_cosine": -1.0})

# "What did I prefer before React?": the memory the question names ("React"), among every version, by a
# shared word or a close spelling, or by meaning (cosine >= 0.35); the chat then hands the versions it
# replaced (engine/recall/chain.py). No graph: its facts are about what is true, not which row names a word.
RECALL_NAMED = RecallConfig(
    limit=5, threshold=0.0, min_cosine=0.35, graph=GraphConfig(enabled=False), fusion=FusionConfig(rank_share=0.5)
)

# The memories page search box: more results, no threshold, typo-tolerant. Searches are short and
# sets can be small, where rank alone barely separates first from third: meaning counts for half.
# A memory is listed when it shares a word or a close spelling with the search, or its meaning is
# close (cosine >= 0.25; "what is my music job" finds the piano teacher at 0.28): a search nothing
# matches says so instead of listing the nearest strangers.
# The fuzzy arm asks for half the query's trigrams: at the chat's 0.3 a short word matched another that
# shares its first letters ("music" found "...lives in Munich"), while typos ("maraton", "berln") share half.
RECALL_MEMORIES_PAGE = RecallConfig(
    limit=50,
    threshold=0.0,
    min_cosine=0.25,
    fusion=FusionConfig(rank_share=0.5),
    trigram=TrigramConfig(min_similarity=0.5),
)

# "Forget that I live in Berlin" in the chat (engine/chat/memory_commands.py): which memory is meant. Words and
# meaning as on the page, the graph aside (its facts add neighbours, not the memory named); what neither
# shares a word with the words said nor comes within cosine 0.35 of them is not meant.
RECALL_MEMORY_COMMAND = RECALL_MEMORIES_PAGE.model_copy(
    update={"limit": 8, "min_cosine": 0.35, "graph": GraphConfig(enabled=False)}
)


# The memories page's and the API's search `method`: hybrid is the page's recipe; keyword finds the
# memories whose own words hold a word of the search, in any form the stemmer or word_forms relates
# ("containers" finds "container", "buses" finds "bus"): not by their context or date, not by a close
# spelling ("plan" is not "play"), nothing by meaning; vector finds by meaning alone, with the page's gate.
class SearchMethod(TextChoices):
    HYBRID = "hybrid", _("Words and meaning")
    KEYWORD = "keyword", _("Words only")
    VECTOR = "vector", _("Meaning only")


SEARCH_METHODS: dict[str, RecallConfig] = {
    SearchMethod.HYBRID: RECALL_MEMORIES_PAGE,
    SearchMethod.KEYWORD: RECALL_MEMORIES_PAGE.model_copy(
        update={
            "vector": VectorConfig(enabled=False),
            "graph": GraphConfig(enabled=False),
            "trigram": TrigramConfig(enabled=False),
            "full_text": FullTextConfig(match_context=False),
            "min_cosine": 1.0,
        }
    ),
    SearchMethod.VECTOR: RECALL_MEMORIES_PAGE.model_copy(
        update={
            "full_text": FullTextConfig(enabled=False),
            "trigram": TrigramConfig(enabled=False),
            "graph": GraphConfig(enabled=False),
        }
    ),
}

# Postgres alone: what recall falls back to when the graph is down, and the benchmark's baseline.
# A question over the whole history ("where has Melanie camped?") is answered by what matches it, not by
# what is recent: validity already keeps replaced facts out, and a 0.15 recency term outweighed the
# difference between full text's first and tenth match. Shared rare words (BM25) count double the
# vector's rank. Chosen on LoCoMo conv-26/30/41, measured on conv-42/43/44: recall@10 0.644 -> 0.679
# (docs/benchmarks/locomo-graph.md, "Choosing the embedder"). A longer question skips trigram's re-rank of what
# vector and full text found: a third of the statement's time, recall@10 0.697 with it, 0.701 without
# (issue #35, docs/recall.md); a short search (<= 16 chars) still scans for close spellings.
RECALL_POSTGRES_ONLY = RecallConfig(
    limit=10,
    threshold=0.0,
    graph=GraphConfig(enabled=False),
    full_text=FullTextConfig(weight=2.0),
    trigram=TrigramConfig(rerank=False),
    scoring=ScoringConfig(similarity=1.0, importance=0.0, recency=0.0),
)
