"""Two current memories that may disagree become a question the user answers (engine/memories/conflicts.py):
asked by extraction when unsure and by the nightly reviewer, answered by replace or keep, and the chat cites
the older only beside the newer until then."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryapp.engine.chat.chat import _beside_rivals
from memoryapp.engine.errors import MemoryConflict, MemoryValidationError
from memoryapp.engine.learning import extraction
from memoryapp.engine.memories import conflicts, write
from memoryapp.models import ChangeQuestion, Memory, QuestionStatus
from memoryapp.pipeline.models import ExtractionRun
from tests.integration.pipeline.conftest import chat

pytestmark = pytest.mark.django_db


def _two_homes(user) -> tuple[Memory, Memory]:
    older = write.add_memory(
        user, "I live in Leeds", kind="fact", valid_from=timezone.now() - timedelta(days=90)
    ).memory
    newer = write.add_memory(user, "We moved to Valencia in the summer", kind="fact").memory
    return older, newer


def test_the_nightly_reviewer_asks_about_two_places_the_user_lives_once(alice):
    older, newer = _two_homes(alice)
    write.add_memory(alice, "I work at a bakery", kind="fact")

    asked = conflicts.review(alice.pk)

    assert [(q.older_id, q.newer_id, q.slot) for q in asked] == [(older.pk, newer.pk, "home")]
    assert conflicts.review(alice.pk) == []  # asked once per pair


def test_another_persons_home_or_a_second_pet_is_not_asked_about(alice):
    write.add_memory(alice, "I live in Madrid", kind="fact")
    write.add_memory(alice, "My sister moved to Porto", kind="fact")
    write.add_memory(alice, "我妹妹搬到杭州了", kind="fact")
    write.add_memory(alice, "I have a cat called Miso", kind="fact")
    write.add_memory(alice, "We also adopted a rabbit", kind="fact")

    assert conflicts.review(alice.pk) == []


def test_replace_ends_the_older_memory_and_keeps_it_in_history(alice):
    older, newer = _two_homes(alice)
    question = conflicts.ask(alice.pk, older, newer)

    conflicts.resolve(question, "replace")

    older.refresh_from_db()
    question.refresh_from_db()
    assert question.status == QuestionStatus.REPLACED and question.decided_at is not None
    assert older.valid_until == newer.valid_from and older.replaced_by == newer
    assert [m.content for m in Memory.objects.filter(user=alice) if m.is_current] == [newer.content]


def test_keep_both_leaves_both_current_and_a_second_answer_is_refused(alice):
    older, newer = _two_homes(alice)
    question = conflicts.ask(alice.pk, older, newer)

    conflicts.resolve(question, "keep")

    assert all(m.is_current for m in Memory.objects.filter(user=alice))
    with pytest.raises(MemoryConflict):
        conflicts.resolve(question, "replace")
    with pytest.raises(MemoryValidationError):
        conflicts.resolve(conflicts.ask(alice.pk, newer, older), "maybe")


def test_a_question_about_a_memory_no_longer_current_is_not_shown(alice):
    older, newer = _two_homes(alice)
    conflicts.ask(alice.pk, older, newer)

    write.delete_memory(older)

    assert list(conflicts.open_questions(alice)) == []


def test_the_chat_cites_an_older_memory_in_question_only_beside_the_newer(alice):
    older, newer = _two_homes(alice)
    conflicts.ask(alice.pk, older, newer)

    class Item:
        def __init__(self, memory):
            self.memory = memory

    assert [i.memory for i in _beside_rivals(alice.pk, [Item(older)])] == []
    assert [i.memory for i in _beside_rivals(alice.pk, [Item(older), Item(newer)])] == [older, newer]


def test_extraction_unsure_of_a_change_asks_instead_of_keeping_two_silently(alice):
    car = write.add_memory(alice, "我开一辆本田雅阁", kind="fact").memory
    conversation, ids = chat(alice, "雅阁卖了，换成了比亚迪的电车，开着很安静")
    run, _ = extraction.queue_run(conversation, ids)
    assert extraction.claim(run)

    extraction.extract(run, llm=None)

    car.refresh_from_db()
    question = ChangeQuestion.objects.filter(user=alice, older=car).first()
    replaced = car.valid_until is not None
    assert replaced or (question is not None and question.status == QuestionStatus.OPEN)
    assert ExtractionRun.objects.get(pk=run.pk).status == "done"


@pytest.mark.parametrize(
    "held, said",
    [
        ("I browse with Google Chrome", "Moved over to Firefox last week, the privacy settings are better"),
        ("记账一直用随手记", "随手记不用了，现在用钱迹记账"),
    ],
)
def test_a_change_said_of_a_thing_the_slot_rules_do_not_know_is_asked_about(alice, held, said):
    # No slot word names browsers or bookkeeping apps: the change word alone makes the doubt worth a question.
    older = write.add_memory(alice, held, kind="preference").memory
    conversation, ids = chat(alice, said)
    run, _ = extraction.queue_run(conversation, ids)
    assert extraction.claim(run)

    extraction.extract(run, llm=None)

    older.refresh_from_db()
    asked = ChangeQuestion.objects.filter(user=alice, older=older, status=QuestionStatus.OPEN).exists()
    assert older.valid_until is not None or asked


def test_a_second_thing_of_the_same_kind_is_not_asked_about(alice):
    older = write.add_memory(alice, "I use Notion for work notes", kind="preference").memory
    conversation, ids = chat(alice, "I also started keeping a paper journal for my evenings")
    run, _ = extraction.queue_run(conversation, ids)
    assert extraction.claim(run)

    extraction.extract(run, llm=None)

    older.refresh_from_db()
    assert older.valid_until is None
    assert not ChangeQuestion.objects.filter(user=alice, older=older).exists()
