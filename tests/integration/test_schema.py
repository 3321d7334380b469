"""The data model on the real Postgres: extensions, indexes, and the constraints that guard memory."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from memoryapp.models import Memory, MemoryStatus

pytestmark = pytest.mark.django_db


def _indexes() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memoryapp_memory'")
        return dict(cursor.fetchall())


def test_it_indexes_embeddings_with_hnsw_and_text_with_gin_and_trigrams():
    indexes = _indexes()
    assert "hnsw" in indexes["memory_embedding_hnsw"] and "halfvec_cosine_ops" in indexes["memory_embedding_hnsw"]
    assert "gin" in indexes["memory_search_vector"]
    assert "gin_trgm_ops" in indexes["memory_content_trgm"]


def test_it_derives_the_full_text_vector_from_the_segmented_tokens(alice):
    memory = Memory.objects.create(user=alice, content="我喜欢 Vue", content_key="k1", search_tokens="我 喜欢 vue")
    found = Memory.objects.filter(pk=memory.pk, search_vector="喜欢").exists()
    assert found


def test_it_keeps_one_current_copy_of_a_fact_per_user(alice, bob):
    Memory.objects.create(user=alice, content="likes tea", content_key="tea")
    Memory.objects.create(user=bob, content="likes tea", content_key="tea")  # another user may have it too
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.create(user=alice, content="likes tea", content_key="tea")
    # A deleted copy does not block a new one.
    Memory.objects.filter(user=alice).update(status=MemoryStatus.DELETED)
    Memory.objects.create(user=alice, content="likes tea", content_key="tea")


def test_it_refuses_importance_outside_zero_to_one(alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.create(user=alice, content="x", content_key="x", importance=1.5)
