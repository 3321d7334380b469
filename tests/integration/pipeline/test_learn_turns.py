"""Another program's conversation, learnt as a chat's (engine/learning/turns.py), with no model: each turn's
time is when what it says became true, and a statement older than the memory it would replace, arriving
after it, becomes that memory's past version."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryapp.engine.learning import turns
from memoryapp.engine.memories import listing
from memoryapp.models import Memory
from memoryapp.pipeline.models import LearnJob
from memoryapp.providers.llm import ProviderError

pytestmark = pytest.mark.django_db


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _learn(user, *said: tuple[str, str], **extra):
    messages = []
    for content, when in said:
        messages += [
            {"role": "user", "content": content, "created_at": when},
            {"role": "assistant", "content": "Noted.", "created_at": when},
        ]
    return turns.learn_conversation(user, {"messages": messages, **extra}, llm=None)


def test_it_learns_english_and_chinese_turns_true_from_when_they_were_said(alice):
    job = _learn(
        alice,
        ("I drink green tea every morning.", "2024-03-05T08:00:00Z"),
        ("我对花生过敏。", "2024-07-01T12:30:00Z"),
    )

    assert (job.status, job.done, job.total, job.created, job.superseded) == ("done", 4, 4, 2, 0), job.error
    learnt = {m.content: m for m in Memory.objects.filter(pk__in=job.memory_ids)}
    assert learnt["I drink green tea every morning"].valid_from == _at("2024-03-05T08:00:00")
    assert learnt["我对花生过敏"].valid_from == _at("2024-07-01T12:30:00")
    assert job.messages == []  # the turns are not kept once learnt


PARIS = ("I live in Paris.", "2023-03-01T10:00:00Z")
BERLIN = ("I moved to Berlin.", "2025-06-01T10:00:00Z")


@pytest.mark.parametrize(
    "calls",
    [[[BERLIN], [PARIS]], [[PARIS], [BERLIN]]],
    ids=["newer first", "in order"],
)
def test_each_statement_holds_from_when_it_was_said_whatever_order_it_arrives_in(alice, calls):
    jobs = [_learn(alice, *said) for said in calls]

    assert sum(j.created for j in jobs) == 1 and sum(j.superseded for j in jobs) == 1, [j.memory_ids for j in jobs]
    now = listing.list_memories(alice, listing.MemoryFilter(), limit=20).memories
    assert [m.content for m in now] == ["I moved to Berlin"]
    then = listing.list_memories(alice, listing.MemoryFilter(at=_at("2024-01-01T00:00:00")), limit=20).memories
    assert [m.content for m in then] == ["I live in Paris"]
    paris = then[0]
    assert (paris.valid_from, paris.valid_until) == (_at("2023-03-01T10:00:00"), _at("2025-06-01T10:00:00"))
    assert paris.replaced_by.content == "I moved to Berlin"


def test_a_failed_job_sent_again_with_its_key_goes_on_after_the_windows_it_learnt(alice, monkeypatch):
    said = [(f"I have a cat called Mochi number {n}.", "2024-01-01T10:00:00Z") for n in range(6)]
    real, calls = turns.extraction.learn_candidates, []

    def down_on_the_second_window(window, llm):
        calls.append(window[0].content)
        if len(calls) == 2:
            raise ProviderError("The language model timed out.")
        return real(window, llm)

    monkeypatch.setattr(turns.extraction, "learn_candidates", down_on_the_second_window)
    with pytest.raises(ProviderError):
        _learn(alice, *said, idempotency_key="k")
    failed = LearnJob.objects.get(user=alice)
    assert (failed.status, failed.windows_done, failed.done) == ("failed", 1, 10)
    assert failed.created == Memory.objects.filter(user=alice).count() > 0  # the first window stays learnt
    assert "ProviderError" in failed.error and failed.messages  # the turns wait for the next try

    job = _learn(alice, *said, idempotency_key="k")

    assert (job.pk, job.status, job.windows_done, job.done, job.total) == (failed.pk, "done", 2, 12, 12)
    assert len(calls) == 3  # the first window was not learnt twice
    assert Memory.objects.filter(user=alice, content__startswith="I have a cat").count() == job.created
