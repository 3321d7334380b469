"""What keeps a small user's recall cheap in a table of many users (bench.scale --tenants, issue #35):
random reads priced as on SSD (else Postgres intersects the user's rows with a common word's global
GIN match list), and an index on the user among the memories that have cue vectors (else the cue
branch reads every row of a user that has none)."""
from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_it_prices_random_reads_as_on_ssd():
    with connection.cursor() as cursor:
        cursor.execute("SHOW random_page_cost")
        assert float(cursor.fetchone()[0]) == pytest.approx(1.1)


def test_it_indexes_each_users_memories_that_have_cue_vectors():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'memory_user_cued'")
        row = cursor.fetchone()
    assert row is not None
    assert "(user_id)" in row[0] and "cue_embedding IS NOT NULL" in row[0]
