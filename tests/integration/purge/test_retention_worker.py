"""The retention purge as the beat runs it: queued to the real Celery worker, which deletes for good."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryapp.engine.memories import write
from memoryapp.models import EventAction, Memory, MemoryEvent
from tasks.maintenance import purge_deleted

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_the_worker_purges_what_expired(alice, celery_worker):
    expired = write.add_memory(alice, "Zanzibar-quokka-8812 我的秘密").memory
    kept = write.add_memory(alice, "Lives in Lisbon").memory
    write.delete_memory(expired)
    MemoryEvent.objects.filter(memory_ref=expired.pk, action=EventAction.DELETED).update(
        created_at=timezone.now() - timedelta(days=31)
    )

    assert purge_deleted.delay().get(timeout=60) == 1

    assert list(Memory.objects.values_list("pk", flat=True)) == [kept.pk]
