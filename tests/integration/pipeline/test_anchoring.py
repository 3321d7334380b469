"""A relative time in what the user said is read against the day it was said into the memory's start,
and the memories page shows it beside the words ("Since Oct 2026" / "始于 2026年10月")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryapp.engine.learning import extraction
from memoryapp.engine.memories import write
from memoryapp.models import Memory

from .conftest import chat

pytestmark = pytest.mark.django_db


def _learn(user, *said: str) -> list[Memory]:
    conversation, ids = chat(user, *said)
    run, _created = extraction.queue_run(conversation, ids)
    assert extraction.claim(run)
    extraction.extract(run, llm=None)
    return list(Memory.objects.filter(user=user, source_conversation=conversation))


@pytest.mark.parametrize(
    ("said", "days_back"),
    [
        ("I actually moved to Suzhou last month.", 31),
        ("我两年前开始学钢琴。", 730),
    ],
)
def test_a_relative_past_time_becomes_the_memorys_start(alice, said, days_back):
    (memory,) = _learn(alice, said)

    assert memory.content == said.rstrip(".。")  # the words as said
    assert abs((timezone.now() - memory.valid_from).days - days_back) <= 3


def test_a_plan_for_later_starts_now(alice):
    (memory,) = _learn(alice, "I'm moving to Valencia next month.")

    assert timezone.now() - memory.valid_from < timedelta(minutes=5)


def test_an_anchored_change_ends_the_old_memory_when_the_change_happened(alice):
    old = write.add_memory(alice, "我住在苏州", kind="fact", valid_from=timezone.now() - timedelta(days=400)).memory

    _learn(alice, "我上个月搬到杭州了")

    old.refresh_from_db()
    assert old.valid_until is not None and 25 <= (timezone.now() - old.valid_until).days <= 35


def test_the_memories_page_shows_when_it_began(alice, client):
    _learn(alice, "I actually moved to Suzhou last month.")
    client.force_login(alice)

    page = client.get("/settings/memories").content.decode()

    month = timezone.localdate().replace(day=1) - timedelta(days=1)
    assert f"Since {month:%B} {month.year}" in page
