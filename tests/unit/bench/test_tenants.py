"""`bench.scale --tenants`: user sizes, the interleaved load plan, binary COPY rows, the top-10 check."""

from __future__ import annotations

import struct
from datetime import UTC, datetime

import numpy as np

from bench import tenant_load, tenants


def test_it_sizes_users_to_the_exact_total_with_a_long_tail():
    sizes = tenant_load.tenant_sizes(2000, 1_000_000)
    assert len(sizes) == 2000 and sum(sizes) == 1_000_000
    assert min(sizes) >= 5
    median = sorted(sizes)[1000]
    assert median < 500 < max(sizes) / 10  # most users are small, a few are large


def test_it_spreads_each_users_rows_over_every_round():
    plan = [(1, 7), (2, 100), (3, 1)]
    rounds = tenant_load.interleaved_plan(plan, rounds=5)
    totals: dict[int, int] = {}
    for part in rounds:
        for user, count in part:
            totals[user] = totals.get(user, 0) + count
    assert totals == {1: 7, 2: 100, 3: 1}
    assert sum(1 for part in rounds for user, _ in part if user == 2) == 5


def test_it_encodes_a_row_in_postgres_binary_copy_format():
    vector = np.asarray([1.0, -0.5], dtype=">f2").tobytes()
    at = datetime(2000, 1, 1, 0, 0, 1, tzinfo=UTC)
    row = tenant_load.encode_row(
        ["integer", "text", "halfvec", "timestamp with time zone", "character varying[]", "double precision"],
        [7, "hé", vector, at, [], None],
    )
    expected = (
        struct.pack(">h", 6)
        + struct.pack(">ii", 4, 7)
        + struct.pack(">i", 3)
        + "hé".encode()
        + struct.pack(">iHH", 8, 2, 0)
        + vector
        + struct.pack(">iq", 8, 1_000_000)
        + struct.pack(">iiii", 12, 0, 0, 1043)
        + struct.pack(">i", -1)
    )
    assert row == expected


def test_it_gives_every_row_of_a_user_its_own_vector():
    """Near-identical synthetic vectors make ties; noise drawn per user slice keeps rows apart."""
    from bench import synthetic

    pool = synthetic.base_sentences(3)
    rng = np.random.default_rng(0)
    pool_vectors = rng.normal(size=(3, 16)).astype(np.float32)
    rows = list(tenant_load.user_rows(1, 40, 0, pool, pool_vectors, seed=5)) + list(
        tenant_load.user_rows(2, 40, 40, pool, pool_vectors, seed=5)
    )
    vectors = {row[tenant_load.COLUMNS.index("embedding")] for row in rows}
    assert len(vectors) == 80


def test_it_counts_a_top_10_equal_only_in_the_exact_searchs_order():
    exact = list(range(1, 13))
    assert tenants.same_top(exact[:10] + [99], exact)
    assert not tenants.same_top([2, 1, *exact[2:10]], exact)
    assert not tenants.same_top(exact[:9], exact)


def test_the_committed_result_holds_what_issue_35_asks():
    import json

    from bench import runtime

    result = json.loads((runtime.REPO / "bench" / "results" / "scale_tenants.json").read_text())["tenants"]
    assert result["rows"] >= 1_000_000 and result["users"] >= 2000
    for key in ("recall_ms", "recall_with_embedding_ms"):
        assert {"p50", "p95"} <= set(result["small_user"][key])
    assert 0 <= result["small_user"]["exact_top10_share"] <= 1
    assert {"p50", "p95"} <= set(result["large_user"]["recall_ms"])
