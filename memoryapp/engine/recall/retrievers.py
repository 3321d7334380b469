"""The retrievers: Postgres (vector, full text, trigram) in one round trip, and the graph.

Every retriever sees only the caller's memories of one status (active, unless the page or the API searches
forgotten or deleted ones) that are valid at the asked time (or, with history, every version); results
are (memory id, raw score) lists, best first.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import DatabaseError, connection

from ..text import query_terms, word_forms
from .config import DEFAULT_EF_SEARCH, DEFAULT_TRIGRAM_THRESHOLD, RecallConfig, Source

if TYPE_CHECKING:
    from memoryapp.graph.port import GraphPort

logger = logging.getLogger(__name__)
_SESSION_DEFAULTS = {
    "hnsw.ef_search": DEFAULT_EF_SEARCH,
    "pg_trgm.word_similarity_threshold": DEFAULT_TRIGRAM_THRESHOLD,
}

Hits = list[tuple[int, float]]
_LEXEME = re.compile(r"\w+")


@dataclass(frozen=True)
class RecallQuery:
    user_id: int
    text: str
    vector: list[float]
    at: datetime
    include_history: bool = False
    kinds: tuple[str, ...] | None = None
    created_since: datetime | None = None  # learnt in [since, until): the page's and the API's time filter
    created_until: datetime | None = None
    status: str = "active"  # the page and the API also search forgotten and deleted memories


@dataclass
class Candidate:
    """One memory's evidence: its rank per source, cosine to the query, and what scoring needs."""

    id: int
    ranks: dict[str, int] = field(default_factory=dict)
    raw: dict[str, float] = field(default_factory=dict)
    cosine: float = 0.0
    importance: float = 0.0
    valid_from: float | None = None  # seconds since the epoch
    kind: str = ""  # the memory's kind: an episode meets a higher bar in the chat (RecallConfig.episode_min_cosine)


def _filters(query: RecallQuery) -> tuple[str, dict]:
    clauses = ["m.user_id = %(user)s", "m.status = %(status)s"]
    params: dict = {"user": query.user_id, "at": query.at, "status": query.status}
    if not query.include_history:
        clauses.append("m.valid_from <= %(at)s AND (m.valid_until IS NULL OR m.valid_until > %(at)s)")
    if query.kinds:
        clauses.append("m.kind = ANY(%(kinds)s)")
        params["kinds"] = list(query.kinds)
    if query.created_since:
        clauses.append("m.created_at >= %(created_since)s")
        params["created_since"] = query.created_since
    if query.created_until:
        clauses.append("m.created_at < %(created_until)s")
        params["created_until"] = query.created_until
    return " AND ".join(clauses), params


@functools.lru_cache(maxsize=512)
def tsquery_text(text: str) -> str:
    """An OR of the query's content words and their other number ("buses" | "bus"; text.word_forms);
    each term is \\w+ only, so the tsquery cannot be malformed. Cached: one recall asks for it from the
    statement, the source list and the evidence gate."""
    terms = [form for term in query_terms(text) for form in (term, *word_forms(term))]
    return " | ".join(dict.fromkeys(t for t in terms if _LEXEME.fullmatch(t)))


def fulltext_query(query: RecallQuery) -> str:
    """The tsquery text of a recall: an OR of its content words."""
    return tsquery_text(query.text)


def own_words_only(tsquery: str) -> str:
    """The same OR, matching only the memory's own words (weight A), not its context's or date's."""
    return " | ".join(f"{term}:A" for term in tsquery.split(" | "))


@contextlib.contextmanager
def _session_settings(cursor, wanted: dict[str, object]) -> Iterator[None]:
    """Set the config's values of these Postgres settings for one query, then the connection's defaults
    back; values equal to the defaults (session.py), the usual case, cost no round trip."""
    changed = {name: value for name, value in wanted.items() if value != _SESSION_DEFAULTS[name]}
    for name, value in changed.items():
        cursor.execute("SELECT set_config(%s, %s, false)", [name, str(value)])
    try:
        yield
    finally:
        with contextlib.suppress(DatabaseError):  # an aborted transaction rolls the settings back itself
            for name in changed:
                cursor.execute("SELECT set_config(%s, %s, false)", [name, str(_SESSION_DEFAULTS[name])])


def _bound_cursor():
    """A cursor whose parameters travel apart from the SQL (server-side binding): the query vector, named
    several times, is sent and parsed once instead of inlined as text at every mention. Django's wrapper
    keeps its execute hooks (bench/scale.py's capture) and error mapping; never prepared (a generic plan
    could not choose between HNSW and an exact scan by the user's size)."""
    import psycopg
    from django.db.backends.utils import CursorWrapper

    connection.ensure_connection()
    return CursorWrapper(psycopg.Cursor(connection.connection), connection)


def best_distance(cues: bool) -> str:
    """SQL for a memory's cosine distance to the query: with cues, the nearer of its content's vector and
    its cues' (a memory without cues has only the first)."""
    content = "(m.embedding <=> %(qv)s::halfvec)"
    if not cues:
        return content
    return f"LEAST({content}, COALESCE((m.cue_embedding <=> %(qv)s::halfvec) + %(cue_margin)s, 2))"


def _vector_cte(where: str, cues: bool) -> str:
    """The nearest memories by meaning. With cues, each HNSW index proposes its nearest (content's,
    cues'), and the union is ranked by the better of the two distances."""
    if not cues:
        return f"""vec AS MATERIALIZED (
            SELECT m.id, m.embedding <=> %(qv)s::halfvec AS d FROM memoryapp_memory m
            WHERE {where} AND m.embedding IS NOT NULL ORDER BY m.embedding <=> %(qv)s::halfvec LIMIT %(vlimit)s)"""
    return f"""vec AS MATERIALIZED (
            SELECT m.id, {best_distance(True)} AS d FROM memoryapp_memory m WHERE m.id IN (
                (SELECT m.id FROM memoryapp_memory m WHERE {where} AND m.embedding IS NOT NULL
                 ORDER BY m.embedding <=> %(qv)s::halfvec LIMIT %(vlimit)s)
                UNION
                (SELECT m.id FROM memoryapp_memory m WHERE {where} AND m.cue_embedding IS NOT NULL
                 ORDER BY m.cue_embedding <=> %(qv)s::halfvec LIMIT %(vlimit)s))
            ORDER BY d, m.id LIMIT %(vlimit)s)"""


def postgres_search(query: RecallQuery, config: RecallConfig) -> dict[int, Candidate]:
    """Run the enabled Postgres retrievers as one statement; return candidates with per-source ranks."""
    where, params = _filters(query)
    params.update(
        qv=str(query.vector),
        cue_margin=config.vector.cue_margin,
        vlimit=config.vector.limit,
        flimit=config.full_text.limit,
        tlimit=config.trigram.limit,
    )
    parts, ctes, names = [], [], []
    if config.vector.enabled:
        names.append("vec")
        ctes.append(_vector_cte(where, config.vector.cues))
        parts.append("SELECT 'vector', id, 1 - d, row_number() OVER (ORDER BY d) FROM vec")
    ts = fulltext_query(query) if config.full_text.enabled else ""
    if ts:
        params["tsq"] = ts if config.full_text.match_context else own_words_only(ts)
        names.append("ft")
        # Ranking every match is what costs at scale (thousands of rows share a common word), so at
        # most `candidate_cap` matches are ranked; below that the result is exact.
        params.update(
            fcap=config.full_text.candidate_cap,
            fcw=config.full_text.context_weight if config.full_text.match_context else 0.0,
            fbw=config.full_text.cue_weight if config.full_text.match_context else 0.0,
        )
        ctes.extend(_bm25_ctes(where))
        params.update(
            fwords=ts.replace(" | ", " "), k1=config.full_text.k1, b=config.full_text.b, ncap=config.full_text.count_cap
        )
        parts.append("SELECT 'full_text', id, s, row_number() OVER (ORDER BY s DESC, id) FROM ft")
    mode = trigram_mode(query, config)
    if mode:
        params.update(qt=query.text.strip(), tmin=config.trigram.min_similarity)
        if mode == "scan":
            # Same bound as full text: re-checking every row that shares a trigram is what costs.
            params.update(tcap=config.trigram.candidate_cap, tfew=config.trigram.row_check_below)
            ctes.extend(_trigram_scan_ctes(where))
            parts.append(
                "SELECT 'trigram', id, s, row_number() OVER (ORDER BY s DESC, id) FROM tri WHERE s >= %(tmin)s"
            )
        else:  # re-rank what the other retrievers found (they applied the filters): a third opinion
            found = " UNION ".join(f"SELECT id FROM {name}" for name in names)
            ctes.append(f"""tri AS MATERIALIZED (
                SELECT m.id, word_similarity(%(qt)s, m.content) AS s FROM memoryapp_memory m
                WHERE m.id IN ({found}) ORDER BY s DESC, m.id LIMIT %(tlimit)s)""")
            parts.append("SELECT 'trigram', id, s, row_number() OVER (ORDER BY s DESC, id) FROM tri")
    if not parts:
        return {}
    sql = f"""WITH {", ".join(ctes)}, hits(src, id, score, rk) AS ({" UNION ALL ".join(parts)})
        SELECT h.src, h.id, h.score, h.rk, 1 - {best_distance(config.vector.cues)}, m.importance,
            extract(epoch FROM m.valid_from)::float8, m.kind
        FROM hits h JOIN memoryapp_memory m ON m.id = h.id"""
    candidates: dict[int, Candidate] = {}
    wanted: dict[str, object] = {}
    if config.vector.enabled:
        wanted["hnsw.ef_search"] = config.vector.ef_search
    if mode == "scan":
        wanted["pg_trgm.word_similarity_threshold"] = config.trigram.min_similarity
    with connection.cursor() as plain, _session_settings(plain, wanted), _bound_cursor() as cursor:
        cursor.execute(sql, params)
        for src, memory_id, score, rank, cosine, importance, valid_from, kind in cursor.fetchall():
            hit = candidates.setdefault(memory_id, Candidate(memory_id))
            hit.ranks[src], hit.raw[src] = int(rank), float(score)
            hit.cosine, hit.importance, hit.valid_from = float(cosine or 0), importance, valid_from
            hit.kind = kind
    return candidates


def _trigram_scan_ctes(where: str) -> list[str]:
    """Rows whose words come close to the query's spelling. A user with fewer than `tfew` memories has
    each row checked (word_similarity, the `<%` operator's own test); a larger one reads the trigram
    index. Postgres decides once per statement (the branch whose one-time filter is false never runs)."""
    return [
        """trifew AS (SELECT count(*) < %(tfew)s AS small FROM (
            SELECT 1 FROM memoryapp_memory m WHERE m.user_id = %(user)s LIMIT %(tfew)s) AS f)""",
        f"""tri AS MATERIALIZED (
            SELECT c.id, word_similarity(%(qt)s, c.content) AS s FROM (
                (SELECT m.id, m.content FROM memoryapp_memory m
                 WHERE {where} AND %(qt)s <%% m.content AND NOT (SELECT small FROM trifew) LIMIT %(tcap)s)
                UNION ALL
                (SELECT m.id, m.content FROM memoryapp_memory m
                 WHERE {where} AND word_similarity(%(qt)s, m.content) >= %(tmin)s AND (SELECT small FROM trifew)
                 LIMIT %(tcap)s)) AS c
            ORDER BY s DESC, c.id LIMIT %(tlimit)s)""",
    ]


def _bm25_ctes(where: str) -> list[str]:
    """Full text ranked by BM25 over the user's memories valid at the asked time.

    The matches (at most `fcap`) are the OR of the query's words, so every memory holding a given
    word is among them: counting per word over the matches gives its document frequency exactly
    (below the cap). A word in half the memories (a name every message carries) then weighs almost
    nothing, a rare one a lot; `ts_rank_cd` weighs them alike. tf is the word's positions in the
    memory (a context or date word counts `context_weight`); length is its distinct words, against the
    matches' average; a cue word counts `cue_weight`. The number of memories is counted up to `count_cap` (counting all of a large
    user's rows was most of the cost: 21 of 35 ms at 30k); past it IDF weights shift, their order does not.
    """
    return [
        f"""ftc AS MATERIALIZED (
            SELECT m.id, m.search_vector AS sv FROM memoryapp_memory m, to_tsquery('memoryapp_mixed', %(tsq)s) AS q(tsq)
            WHERE {where} AND m.search_vector @@ q.tsq LIMIT %(fcap)s)""",
        # Each match keeps only the query's words before unnest: unnesting whole vectors (positions and
        # weights of every word) was most of full text's cost; sv minus (sv minus the words) is exact.
        """ftq AS (SELECT tsvector_to_array(to_tsvector('memoryapp_mixed', %(fwords)s)) AS words)""",
        """fth AS MATERIALIZED (
            SELECT c.id, u.lexeme, length(c.sv)::float8 AS len,
                (cardinality(array_positions(u.weights, 'A')) + %(fbw)s * cardinality(array_positions(u.weights, 'B'))
                 + %(fcw)s * cardinality(array_positions(u.weights, 'C')))::float8 AS tf
            FROM ftc c CROSS JOIN ftq q, unnest(ts_delete(c.sv, tsvector_to_array(ts_delete(c.sv, q.words)))) AS u)""",
        """ftd AS (SELECT lexeme, count(*)::float8 AS df FROM fth GROUP BY lexeme)""",
        f"""ftn AS (SELECT greatest((SELECT count(*) FROM (
                SELECT 1 FROM memoryapp_memory m WHERE {where} LIMIT %(ncap)s) AS x), 1)::float8 AS n,
            greatest((SELECT avg(length(sv)) FROM ftc), 1)::float8 AS avglen)""",
        """ft AS MATERIALIZED (
            SELECT h.id, sum(ln(1 + (greatest(n.n - d.df, 0) + 0.5) / (d.df + 0.5))
                * h.tf * (%(k1)s + 1) / (h.tf + %(k1)s * (1 - %(b)s + %(b)s * h.len / n.avglen))) AS s
            FROM fth h JOIN ftd d USING (lexeme) CROSS JOIN ftn n
            GROUP BY h.id ORDER BY s DESC, h.id LIMIT %(flimit)s)""",
    ]


def hydrate(query: RecallQuery, ids: list[int], config: RecallConfig) -> dict[int, Candidate]:
    """Scoring inputs for ids found elsewhere (the graph), filtered exactly like the retrievers."""
    if not ids:
        return {}
    where, params = _filters(query)
    params.update(qv=str(query.vector), cue_margin=config.vector.cue_margin, ids=ids)
    sql = f"""SELECT m.id, 1 - {best_distance(config.vector.cues)}, m.importance, extract(epoch FROM m.valid_from)::float8, m.kind
        FROM memoryapp_memory m WHERE {where} AND m.id = ANY(%(ids)s)"""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {
            row[0]: Candidate(row[0], cosine=float(row[1] or 0), importance=row[2], valid_from=row[3], kind=row[4])
            for row in cursor.fetchall()
        }


def graph_search(query: RecallQuery, config: RecallConfig, graph: GraphPort | None = None) -> Hits:
    """Memory ids the temporal graph (`graph`, default the configured one) finds; raises GraphUnavailable
    when it is off, down or slow."""
    from memoryapp.graph import search_memory_ids

    return search_memory_ids(
        query.user_id,
        query.text,
        at=None if query.include_history else query.at,
        limit=config.graph.limit,
        include_history=query.include_history,
        timeout_s=config.graph.time_budget_ms / 1000,
        query_vector=query.vector,  # graphiti embeds with our embedder: the same vector, not computed twice
        graph=graph,
    )


def trigram_mode(query: RecallQuery, config: RecallConfig) -> str | None:
    """'scan' for short queries, 'rerank' for longer ones, None when trigram does not take part."""
    length = len(query.text.strip())
    if not config.trigram.enabled or length == 0 or length > config.trigram.max_query_chars:
        return None
    if length <= config.trigram.scan_max_chars:
        return "scan"
    has_other = config.vector.enabled or bool(config.full_text.enabled and fulltext_query(query))
    return "rerank" if has_other and config.trigram.rerank else None


def enabled_sources(query: RecallQuery, config: RecallConfig) -> list[Source]:
    """The sources that take part for this query (normalises fusion scores)."""
    sources = []
    if config.vector.enabled:
        sources.append(Source.VECTOR)
    if config.full_text.enabled and fulltext_query(query):
        sources.append(Source.FULL_TEXT)
    if trigram_mode(query, config):
        sources.append(Source.TRIGRAM)
    return sources
