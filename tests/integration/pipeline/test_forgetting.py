"""The nightly pass on real rows at a frozen moment: events, restore, once per day, dry runs, promotion."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from memoryapp.engine.learning.forgetting import forget_user
from memoryapp.engine.llm.promotion import PROMOTE_MARKER
from memoryapp.engine.memories import write
from memoryapp.models import Memory, MemoryEvent

pytestmark = pytest.mark.django_db

# Tomorrow at 10:00: a test that adds hours to NOW must stay within its day whatever time the suite runs.
NOW = timezone.localtime(timezone.now() + timedelta(days=1)).replace(hour=10, minute=0, second=0, microsecond=0)


def _aged(user, content: str, days: float, **fields) -> Memory:
    accesses = fields.pop("access_count", 0)
    memory = write.add_memory(user, content, **fields).memory
    Memory.objects.filter(pk=memory.pk).update(created_at=NOW - timedelta(days=days), access_count=accesses)
    memory.refresh_from_db()
    return memory


def _state(memory: Memory) -> tuple[str, float, str]:
    memory.refresh_from_db()
    return memory.status, round(memory.importance, 3), memory.lifecycle


def test_it_forgets_demotes_and_spares_with_an_event_each(alice):
    stale = _aged(alice, "I once visited Oslo", 250, importance=0.5)
    fading = _aged(alice, "I like chess openings", 60, importance=0.5)
    core = _aged(alice, "My name is Alice", 900, importance=0.3, lifecycle="core")
    fresh = _aged(alice, "I am learning Rust", 1, importance=0.5)

    changes, applied = forget_user(alice.pk, NOW, llm=None)

    assert applied and {c.memory_id: c.change for c in changes} == {stale.pk: "forget", fading.pk: "demote"}
    assert _state(stale) == ("forgotten", 0.5, "working")
    assert _state(fading) == ("active", 0.4, "working")
    assert _state(core) == ("active", 0.3, "core") and _state(fresh) == ("active", 0.5, "working")
    actions = MemoryEvent.objects.filter(actor="forgetting").values_list("memory_ref", "action")
    assert sorted(actions) == sorted([(stale.pk, "forgotten"), (fading.pk, "demoted")])


def test_it_restores_a_forgotten_memory_intact(alice):
    stale = _aged(alice, "I once visited Oslo", 250, importance=0.5, kind="fact")
    forget_user(alice.pk, NOW, llm=None)
    write.restore_memory(Memory.objects.get(pk=stale.pk))

    restored = Memory.objects.get(pk=stale.pk)
    assert (restored.status, restored.content, restored.kind, restored.importance) == (
        "active",
        "I once visited Oslo",
        "fact",
        0.5,
    )
    assert restored.embedding is not None


def test_it_runs_once_per_day(alice):
    fading = _aged(alice, "I like chess openings", 60, importance=0.5)
    forget_user(alice.pk, NOW, llm=None)
    assert forget_user(alice.pk, NOW + timedelta(hours=2), llm=None) == ([], False)
    assert _state(fading)[1] == 0.4

    forget_user(alice.pk, NOW + timedelta(days=1), llm=None)
    assert _state(fading)[1] == 0.32  # the next night lowers it again


def test_it_lists_without_changing_on_a_dry_run(alice):
    stale = _aged(alice, "I once visited Oslo", 250, importance=0.5)
    out = io.StringIO()
    call_command("forget", "--dry-run", "--now", NOW.isoformat(), stdout=out, stderr=io.StringIO())

    assert f"would forget #{stale.pk}" in out.getvalue() and "would change: 1 forgotten" in out.getvalue()
    assert _state(stale)[0] == "active" and not MemoryEvent.objects.filter(actor="forgetting").exists()


def test_it_promotes_what_the_model_picks_in_one_call(alice, llm_server, scripted_llm):
    kept = _aged(alice, "I am vegetarian", 3, importance=0.8, access_count=4)
    passing = _aged(alice, "I am at the airport", 3, importance=0.8, access_count=4)
    llm_server.script(PROMOTE_MARKER, json.dumps({"promote": [kept.pk, 999999]}))

    forget_user(alice.pk, NOW, llm=scripted_llm)

    assert len(llm_server.chat_requests()) == 1
    assert _state(kept)[2] == "core" and _state(passing)[2] == "working"
    assert MemoryEvent.objects.get(actor="forgetting").action == "promoted"


def test_it_promotes_by_rule_offline(alice):
    kept = _aged(alice, "I am vegetarian", 3, importance=0.8, access_count=4)
    forget_user(alice.pk, NOW, llm=None)
    assert _state(kept)[2] == "core"
