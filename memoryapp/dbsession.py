"""Per-connection Postgres settings that recall relies on."""
from __future__ import annotations

from memoryapp.engine.recall.config import DEFAULT_EF_SEARCH, DEFAULT_TRIGRAM_THRESHOLD

# Iterative HNSW scans (pgvector 0.8) keep recall when the user filter removes most neighbours;
# relaxed order is re-sorted by the query. ef_search and the trigram threshold (which bounds
# fuzzy-match work) are RecallConfig's defaults; a config asking for others sets them per query.
# random_page_cost 1.1 (Postgres' default 4 prices a spinning disk): at 4, a small user's full-text
# search among a million others intersected the user's few hundred rows with the global GIN bitmap of
# a common word (90k rows, ~137 ms); at 1.1 it reads the user's rows and tests each, 0.3 ms
# (docs/benchmarks.md, "Many users").
SESSION_SQL = (
    f"SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = {int(DEFAULT_EF_SEARCH)}; "
    f"SET pg_trgm.word_similarity_threshold = {float(DEFAULT_TRIGRAM_THRESHOLD)}; SET random_page_cost = 1.1"
)


def configure_session(sender, connection, **kwargs) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(SESSION_SQL)
