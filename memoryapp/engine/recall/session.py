"""Per-connection Postgres settings that recall relies on."""

from __future__ import annotations

from django.conf import settings

from memoryapp.engine.recall.config import DEFAULT_EF_SEARCH, DEFAULT_TRIGRAM_THRESHOLD

# Iterative HNSW scans (pgvector 0.8) keep recall when the user filter removes most neighbours;
# relaxed order is re-sorted by the query. ef_search and the trigram threshold (which bounds
# fuzzy-match work) are RecallConfig's defaults; a config asking for others sets them per query.
SESSION_SQL = (
    f"SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = {int(DEFAULT_EF_SEARCH)}; "
    f"SET pg_trgm.word_similarity_threshold = {float(DEFAULT_TRIGRAM_THRESHOLD)}"
)


def session_sql() -> str:
    """SESSION_SQL, and random_page_cost where DB_RANDOM_PAGE_COST sets one. At 1.1 a small user's full text
    among a million others' rows reads the user's rows instead of a common word's global match list (137 ms
    -> 0.3 ms), but one user's recall on a small table is slower (LoCoMo p50 +4 ms) and so is a chat under
    load (docs/benchmarks/speed.md, "Many users"): Postgres' own 4 is the default."""
    if not settings.DB_RANDOM_PAGE_COST:
        return SESSION_SQL
    return f"{SESSION_SQL}; SET random_page_cost = {float(settings.DB_RANDOM_PAGE_COST)}"


def configure_session(sender, connection, **kwargs) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(session_sql())
