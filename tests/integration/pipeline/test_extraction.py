"""Extraction in this process against the scripted model server: decisions, secrets, failures, idempotency."""

from __future__ import annotations

import pytest

from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.engine.llm.decisions import DECIDE_MARKER
from memoryapp.engine.memories import write
from memoryapp.models import ChangeQuestion, Memory, MemoryEvent, MemorySettings, QuestionStatus
from memoryapp.pipeline.models import ExtractionRun, FailedTask
from tasks.extraction import extract_messages
from tests.support.llm_server import Garbage

from .conftest import candidates, chat, decisions

pytestmark = pytest.mark.django_db


def _current(user) -> list[str]:
    return sorted(
        Memory.objects.filter(user=user, status="active", valid_until__isnull=True).values_list("content", flat=True)
    )


def test_it_updates_and_adds_from_one_batch_in_two_model_calls(alice, llm_server, use_scripted_llm):
    vue = write.add_memory(alice, "I like Vue 3 for frontend work", kind="preference").memory
    conversation, ids = chat(alice, "I now prefer React for frontend work", "I drink green tea every morning")
    llm_server.script(
        EXTRACT_MARKER,
        candidates(("I now prefer React for frontend work", "preference"), ("I drink green tea every morning", "fact")),
    )
    llm_server.script(DECIDE_MARKER, decisions(("UPDATE", vue.pk), ("ADD", None)))

    result = extract_messages.apply(args=[conversation.pk, ids]).get()

    assert result["status"] == "done" and result["applied"] == {"UPDATE": 1, "ADD": 1}
    assert len(llm_server.chat_requests()) == 2 and result["llm_calls"] == 2
    assert _current(alice) == ["I drink green tea every morning", "I now prefer React for frontend work"]
    tea = Memory.objects.get(content__startswith="I drink")
    assert (tea.source, tea.source_conversation_id, tea.source_message_id) == ("extracted", conversation.pk, ids[2])
    vue.refresh_from_db()
    assert vue.valid_until is not None  # superseded, kept in history
    assert set(MemoryEvent.objects.filter(actor="extractor").values_list("action", flat=True)) == {
        "created",
        "superseded",
    }


def test_it_keeps_secrets_out_whatever_the_model_proposes(alice, llm_server, use_scripted_llm):
    conversation, ids = chat(alice, "My password is hunter2 and I like jazz")
    llm_server.script(EXTRACT_MARKER, candidates(("My password is hunter2", "fact"), ("I like jazz", "preference")))

    extract_messages.apply(args=[conversation.pk, ids]).get()

    assert _current(alice) == ["I like jazz"]


def test_it_drops_secrets_said_in_words_in_both_languages(alice, llm_server, use_scripted_llm):
    conversation, ids = chat(alice, "my bank PIN is 4821 btw, and I like jazz", "支付密码是870412，我喜欢喝茶")
    llm_server.script(
        EXTRACT_MARKER,
        candidates(
            ("my bank PIN is 4821", "fact"),
            ("I like jazz", "preference"),
            ("支付密码是870412", "fact"),
            ("我喜欢喝茶", "preference"),
        ),
    )

    result = extract_messages.apply(args=[conversation.pk, ids]).get()

    assert result["status"] == "done" and _current(alice) == ["I like jazz", "我喜欢喝茶"]
    assert not Memory.objects.filter(user=alice).exclude(context="").exists()  # nor kept as what it was learnt from


def test_it_drops_a_pin_said_in_words_offline(alice):
    conversation, ids = chat(
        alice, "I prefer tabs over spaces. My bank PIN is 4821.", "我的身份证号码是 330106198709152216"
    )

    result = extract_messages.apply(args=[conversation.pk, ids]).get()

    assert result["status"] == "done" and _current(alice) == ["I prefer tabs over spaces"]


def test_it_retries_bad_json_then_records_the_failure_and_can_run_again(alice, llm_server, use_scripted_llm):
    conversation, ids = chat(alice, "I live in Lisbon")
    llm_server.script(
        EXTRACT_MARKER, Garbage("not json"), Garbage('{"candidates": [{"kind": "nonsense"}]}'), Garbage("")
    )

    outcome = extract_messages.apply(args=[conversation.pk, ids])

    assert outcome.failed() and _current(alice) == []
    assert len(llm_server.chat_requests(EXTRACT_MARKER)) == 3  # the first answer and two corrections
    failure = FailedTask.objects.get(task_name="tasks.extraction.extract_messages")
    assert failure.args == [conversation.pk, ids] and "invalid" in failure.error and not failure.resolved
    assert ExtractionRun.objects.get().status == "failed"

    llm_server.script(EXTRACT_MARKER, candidates(("I live in Lisbon", "fact")))
    assert extract_messages.apply(args=failure.args).get()["status"] == "done"
    assert _current(alice) == ["I live in Lisbon"]
    failure.refresh_from_db()
    assert failure.resolved


def test_it_runs_a_window_once_however_often_it_is_queued(alice, llm_server, use_scripted_llm):
    conversation, ids = chat(alice, "I like hiking in the Alps")
    llm_server.script(EXTRACT_MARKER, candidates(("I like hiking in the Alps", "preference")))

    first = extract_messages.apply(args=[conversation.pk, ids]).get()
    events = MemoryEvent.objects.count()
    second = extract_messages.apply(args=[conversation.pk, list(reversed(ids))]).get()

    assert first == second and first["applied"] == {"ADD": 1}
    assert len(llm_server.chat_requests()) == 1 and MemoryEvent.objects.count() == events
    assert _current(alice) == ["I like hiking in the Alps"]


def test_it_applies_nothing_when_a_decision_fails_part_way(alice, llm_server, use_scripted_llm):
    vue = write.add_memory(alice, "I like Vue 3 for frontend work", kind="preference").memory
    angular = write.add_memory(alice, "I use Angular at work", kind="fact").memory
    write.add_memory(alice, "I now prefer React for frontend work", kind="preference")
    conversation, ids = chat(alice, "I no longer like Vue", "I now prefer React for frontend work")
    llm_server.script(
        EXTRACT_MARKER,
        candidates(
            ("I no longer like Vue for frontend work", "preference"),
            ("I now prefer React for frontend work", "preference"),
        ),
    )
    # The second replaces Angular with words already current in another memory: it fails after the first.
    llm_server.script(DECIDE_MARKER, decisions(("DELETE", vue.pk), ("UPDATE", angular.pk)))
    events = MemoryEvent.objects.count()

    outcome = extract_messages.apply(args=[conversation.pk, ids], retries=4)  # no retries left

    assert outcome.failed()
    vue.refresh_from_db()
    assert vue.is_current and sorted(_current(alice)) == [
        "I like Vue 3 for frontend work",
        "I now prefer React for frontend work",
        "I use Angular at work",
    ]
    assert MemoryEvent.objects.count() == events
    assert ExtractionRun.objects.get().status == "failed"


def test_a_replacement_of_a_memory_deleted_earlier_in_the_window_is_a_new_memory(alice, llm_server, use_scripted_llm):
    vue = write.add_memory(alice, "I like Vue 3 for frontend work", kind="preference").memory
    conversation, ids = chat(alice, "I no longer like Vue", "I now prefer React for frontend work")
    llm_server.script(
        EXTRACT_MARKER,
        candidates(
            ("I no longer like Vue for frontend work", "preference"),
            ("I now prefer React for frontend work", "preference"),
        ),
    )
    # Both decided against Vue as it was: the second finds it deleted by the first.
    llm_server.script(DECIDE_MARKER, decisions(("DELETE", vue.pk), ("UPDATE", vue.pk)))

    assert extract_messages.apply(args=[conversation.pk, ids]).successful()
    vue.refresh_from_db()
    assert vue.status == "deleted" and _current(alice) == ["I now prefer React for frontend work"]


def test_it_turns_candidates_into_suggestions_when_auto_extract_is_off(alice, llm_server, use_scripted_llm):
    from memoryapp.engine.learning.extraction import confirm_suggestion, dismiss_suggestion
    from memoryapp.pipeline.models import MemorySuggestion

    MemorySettings.objects.create(user=alice, auto_extract=False)
    conversation, ids = chat(alice, "I like jazz. I am a nurse.")
    llm_server.script(EXTRACT_MARKER, candidates(("I like jazz", "preference"), ("I am a nurse", "fact")))

    assert extract_messages.apply(args=[conversation.pk, ids]).get()["status"] == "suggested"
    assert _current(alice) == [] and len(llm_server.chat_requests()) == 1  # no decide call
    jazz, nurse = MemorySuggestion.objects.order_by("id")
    memory = confirm_suggestion(jazz).memory
    dismiss_suggestion(nurse)

    assert _current(alice) == ["I like jazz"] and memory.source == "extracted"
    assert [s.status for s in MemorySuggestion.objects.order_by("id")] == ["confirmed", "dismissed"]


def test_it_runs_the_same_pipeline_offline(alice):
    conversation, ids = chat(alice, "I prefer tabs over spaces. What time is it?", "My api key is sk-abc")

    result = extract_messages.apply(args=[conversation.pk, ids]).get()

    assert result["status"] == "done" and _current(alice) == ["I prefer tabs over spaces"]


def test_it_takes_back_a_window_whose_worker_died_but_not_a_live_one(alice):
    from datetime import timedelta

    from django.utils import timezone

    from memoryapp.engine.learning.extraction import claim, queue_run

    conversation, ids = chat(alice, "I like tea")
    run, _ = queue_run(conversation, ids)
    assert claim(run) and not claim(run)  # one worker at a time

    ExtractionRun.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(minutes=20))
    assert claim(run) and run.attempts == 2  # its transaction never committed: nothing to undo

    result = extract_messages.apply(args=[conversation.pk, ids]).get()
    assert result["status"] == "running" and _current(alice) == []  # a live claim is left alone


def test_the_sweep_sends_runs_no_worker_will_finish_back_to_a_worker(
    alice, monkeypatch, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    from memoryapp.engine.learning.extraction import SWEEP_MAX_ATTEMPTS, queue_run
    from tasks.extraction import requeue_stalled

    ago = timezone.now() - timedelta(minutes=11)
    lost, _ = queue_run(*chat(alice, "I prefer tabs over spaces"))  # queued while the broker was down
    failed, _ = queue_run(*chat(alice, "I live in Porto"))  # the model was down past the task's retries
    given_up, _ = queue_run(*chat(alice, "I like jazz"))
    fresh, _ = queue_run(*chat(alice, "I play chess"))  # its message is on its way: leave it
    ExtractionRun.objects.filter(pk=lost.pk).update(created_at=ago)
    ExtractionRun.objects.filter(pk=failed.pk).update(status="failed", attempts=3, finished_at=ago)
    ExtractionRun.objects.filter(pk=given_up.pk).update(status="failed", attempts=SWEEP_MAX_ATTEMPTS, finished_at=ago)
    sent = []
    monkeypatch.setattr(extract_messages, "delay", lambda *args: sent.append(extract_messages.apply(args=args).get()))

    with django_capture_on_commit_callbacks(execute=True):  # the seam queues on commit
        assert requeue_stalled() == 2

    assert _current(alice) == ["I live in Porto", "I prefer tabs over spaces"]
    assert [r["status"] for r in sent] == ["done", "done"]
    assert requeue_stalled() == 0  # done runs are not sent again


@pytest.mark.parametrize(
    ("said", "reworded"),
    [
        ("The kids' swim lesson is at 5:15 on Saturdays.", "Kids' swim lesson is at 5 on Saturdays"),
        ("我们每周五下午3:30开周会。", "每周五下午开周会"),
    ],
)
def test_a_model_wording_that_loses_a_time_is_stored_in_the_users_words(
    alice, llm_server, use_scripted_llm, said, reworded
):
    conversation, ids = chat(alice, said)
    llm_server.script(EXTRACT_MARKER, candidates((reworded, "fact")))
    llm_server.script(DECIDE_MARKER, decisions(("ADD", None)))

    result = extract_messages.apply(args=[conversation.pk, ids]).get()

    assert result["applied"] == {"ADD": 1}
    assert _current(alice) == [said.rstrip(".。")]


@pytest.mark.parametrize(
    "held, said",
    [
        ("I browse with Google Chrome", "I switched to Firefox for the privacy settings"),
        ("记账一直用随手记", "随手记不用了，现在用钱迹记账"),
    ],
)
def test_a_model_that_keeps_a_change_beside_the_old_memory_leaves_a_question(
    alice, llm_server, use_scripted_llm, held, said
):
    # The model says "new"; the no-model default sees a change: the user is asked, not left with two.
    older = write.add_memory(alice, held, kind="preference").memory
    conversation, ids = chat(alice, said)
    llm_server.script(EXTRACT_MARKER, candidates((said, "preference")))
    llm_server.script(DECIDE_MARKER, decisions(("ADD", None)))

    result = extract_messages.apply(args=[conversation.pk, ids]).get()

    assert result["status"] == "done" and result["applied"] == {"ADD": 1}
    older.refresh_from_db()
    assert older.valid_until is None  # the model's decision stands: nothing replaced without the user
    question = ChangeQuestion.objects.get(user=alice, older=older)
    assert question.newer.content == said and question.status == QuestionStatus.OPEN


def test_a_model_that_adds_something_unrelated_asks_nothing(alice, llm_server, use_scripted_llm):
    write.add_memory(alice, "I browse with Google Chrome", kind="preference")
    conversation, ids = chat(alice, "I drink green tea every morning")
    llm_server.script(EXTRACT_MARKER, candidates(("I drink green tea every morning", "fact")))
    llm_server.script(DECIDE_MARKER, decisions(("ADD", None)))

    extract_messages.apply(args=[conversation.pk, ids]).get()

    assert not ChangeQuestion.objects.filter(user=alice).exists()
