"""Per-connection Postgres settings that recall relies on."""
from __future__ import annotations

from memoryapp.engine.config import DEFAULT_EF_SEARCH

# Iterative HNSW scans (pgvector 0.8) keep recall when the user filter removes most neighbours;
# relaxed order is re-sorted by the query. ef_search is VectorConfig's default (a recall config
# asking for another sets it around its query). The trigram threshold bounds fuzzy-match work.
SESSION_SQL = (
    f"SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = {int(DEFAULT_EF_SEARCH)}; "
    "SET pg_trgm.word_similarity_threshold = 0.3"
)


def configure_session(sender, connection, **kwargs) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(SESSION_SQL)
