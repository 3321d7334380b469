"""Per-connection Postgres settings that recall relies on."""
from __future__ import annotations

# Iterative HNSW scans (pgvector 0.8) keep recall when the user filter removes most neighbours;
# relaxed order is re-sorted by the query. The trigram threshold bounds fuzzy-match work.
SESSION_SQL = (
    "SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 80; "
    "SET pg_trgm.word_similarity_threshold = 0.3"
)


def configure_session(sender, connection, **kwargs) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(SESSION_SQL)
