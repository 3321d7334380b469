"""A Celery worker killed (SIGKILL) in the middle of an extraction batch.

Pipeline tasks ack late, so the broker still holds the message; once the visibility timeout passes
(CELERY_VISIBILITY_TIMEOUT, 1 h by default, 2 s here) the next worker gets it back, the run's claim
recognises its own redelivered task, and the batch runs again and is applied once.

Covered elsewhere: a window queued twice runs once (tests/integration/pipeline/test_extraction.py,
test_it_runs_a_window_once_however_often_it_is_queued), and a claim left by a dead worker with no
redelivery is taken back after STALE_AFTER (test_it_takes_back_a_window_whose_worker_died_but_not_a_live_one).
"""

from __future__ import annotations

import signal
import time

import pytest
from celery import Celery
from django.conf import settings

from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.engine.llm.decisions import DECIDE_MARKER
from memoryapp.engine.memories import write
from memoryapp.models import Memory, MemoryEvent
from memoryapp.pipeline.models import ExtractionRun, FailedTask
from tests.integration.pipeline.conftest import candidates, chat, decisions
from tests.support.dedicated import wait_until
from tests.support.llm_server import Delay, pseudo_embedding

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

VISIBILITY_TIMEOUT = 2


def test_it_reruns_a_batch_whose_worker_was_killed_and_applies_it_once(alice, stack, own_redis):
    stack.env["CELERY_VISIBILITY_TIMEOUT"] = str(VISIBILITY_TIMEOUT)
    first = stack.start_worker("doomed")
    vue_text = "I like Vue 3 for frontend work"  # embedded as the workers embed (the scripted server)
    vue = write.add_memory(
        alice, vue_text, kind="preference", embedding=pseudo_embedding(vue_text, settings.EMBEDDING_DIM)
    ).memory
    conversation, ids = chat(alice, "I now prefer React for frontend work", "I drink green tea every morning")
    batch = candidates(
        ("I now prefer React for frontend work", "preference"), ("I drink green tea every morning", "fact")
    )
    # The first worker gets its candidates, then waits on the decision call: that is where it dies.
    stack.llm.script(EXTRACT_MARKER, batch, batch)
    stack.llm.script(DECIDE_MARKER, Delay(120), decisions(("UPDATE", vue.pk), ("ADD", None)))

    client = Celery(broker=own_redis.url, backend=own_redis.url, set_as_current=False)
    try:
        result = client.send_task("tasks.extraction.extract_messages", args=[conversation.pk, ids])
        wait_until(lambda: stack.llm.chat_requests(DECIDE_MARKER), 60, "the worker asking for decisions")
        run = ExtractionRun.objects.get(conversation=conversation)
        assert run.status == "running" and run.claimed_by == result.id

        first.send_signal(signal.SIGKILL)
        first.wait(10)
        killed_at = time.monotonic()
        assert run.attempts == 1 and not Memory.objects.filter(content__contains="React").exists()

        wait_until(lambda: time.monotonic() - killed_at > VISIBILITY_TIMEOUT, 10, "the visibility timeout")
        stack.start_worker("successor")  # restores the unacknowledged message as it starts polling
        summary = result.get(timeout=60)
    finally:
        client.close()

    assert summary["status"] == "done" and summary["applied"] == {"UPDATE": 1, "ADD": 1}
    run.refresh_from_db()
    assert run.status == "done" and run.attempts == 2
    assert len(stack.llm.chat_requests(EXTRACT_MARKER)) == 2 and len(stack.llm.chat_requests(DECIDE_MARKER)) == 2
    current = Memory.objects.filter(user=alice, status="active", valid_until__isnull=True)
    assert sorted(current.values_list("content", flat=True)) == [
        "I drink green tea every morning",
        "I now prefer React for frontend work",
    ]
    assert Memory.objects.filter(user=alice).count() == 3  # Vue, kept in history as superseded
    assert MemoryEvent.objects.filter(actor="extractor", action="created").count() == 2
    assert not FailedTask.objects.exists()
