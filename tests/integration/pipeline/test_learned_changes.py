"""With no model configured, the trained change model (engine/learned/changes.py) decides what a new
statement does to the user's nearest memories, through the real extraction path: a stated change
supersedes the old memory (kept in its history), a resemblance is added beside it, a restatement
writes nothing."""

from __future__ import annotations

import pytest

from memoryapp.engine.learned.model import usable
from memoryapp.engine.learning import extraction
from memoryapp.engine.memories import write
from memoryapp.models import Memory

from .conftest import chat

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _shipped_model():
    assert usable("changes") is not None, "weights/changes.npz ships, trained on the default embedder"


def _learn(user, said: str):
    conversation, ids = chat(user, said)
    run, _created = extraction.queue_run(conversation, ids)
    assert extraction.claim(run)
    return extraction.extract(run, llm=None)


@pytest.mark.parametrize(
    ("before", "kind", "said"),
    [
        ("I drink coffee every morning", "preference", "I drink green tea every morning now, I quit coffee"),
        ("我住在苏州", "fact", "我现在住在杭州了，上个月从苏州搬过来的"),
    ],
)
def test_a_stated_change_replaces_the_old_memory_which_stays_in_its_history(alice, before, kind, said):
    old = write.add_memory(alice, before, kind=kind).memory

    outcome = _learn(alice, said)

    assert outcome.applied == {"UPDATE": 1}
    old.refresh_from_db()
    assert old.valid_until is not None and old.replaced_by.content == said  # superseded, not deleted
    assert [m.content for m in Memory.objects.filter(user=alice) if m.is_current] == [said]


@pytest.mark.parametrize(
    ("before", "kind", "said"),
    [
        ("My dog is Max", "fact", "My sister has a dog now, she's called Bella"),
        ("I live in Porto", "fact", "My brother now lives in Porto too"),
        ("我住在苏州", "fact", "我妹妹现在也住在苏州了"),
        ("我用钉钉", "preference", "我老公现在也用钉钉"),
    ],
)
def test_a_statement_that_only_resembles_a_memory_does_not_replace_it(alice, before, kind, said):
    old = write.add_memory(alice, before, kind=kind).memory

    outcome = _learn(alice, said)

    assert outcome.applied == {"ADD": 1}
    old.refresh_from_db()
    assert old.valid_until is None  # the user's memory is still current
    assert sorted(m.content for m in Memory.objects.filter(user=alice) if m.is_current) == sorted([before, said])


@pytest.mark.parametrize(
    ("before", "kind", "said"),
    [
        ("I drink coffee every morning", "preference", "I drink coffee every single morning"),
        ("我每天早上喝咖啡", "preference", "我每天早上都喝咖啡"),
    ],
)
def test_a_restatement_writes_nothing_new(alice, before, kind, said):
    write.add_memory(alice, before, kind=kind)

    outcome = _learn(alice, said)

    assert outcome.applied == {"SKIP": 1}
    assert [m.content for m in Memory.objects.filter(user=alice)] == [before]


def test_a_new_job_never_replaces_the_home_memory(alice):
    """A correction once replaced the wrong memory: "我换工作了…" superseded where the user lives."""
    home = write.add_memory(alice, "I actually moved to Suzhou last month", kind="fact").memory
    job = write.add_memory(alice, "我在杭州做前端开发，主要用React", kind="fact").memory

    _learn(alice, "我换工作了，现在在苏州做后端开发")

    home.refresh_from_db()
    assert home.valid_until is None  # where the user lives is untouched
    job.refresh_from_db()
    current = [m.content for m in Memory.objects.filter(user=alice) if m.is_current]
    assert "我换工作了，现在在苏州做后端开发" in current and home.content in current


@pytest.mark.parametrize(
    ("before", "kind", "said"),
    [
        ("I'm vegetarian", "preference", "我现在不吃素了"),  # a change said in the other language
        ("我住在成都", "fact", "We moved to Chongqing last month"),
    ],
)
def test_a_change_said_in_the_other_language_replaces_the_memory(alice, before, kind, said):
    old = write.add_memory(alice, before, kind=kind).memory

    _learn(alice, said)

    old.refresh_from_db()
    assert old.valid_until is not None and old.replaced_by.content.startswith(said.rstrip("."))


def test_the_memory_of_the_slot_is_compared_however_far_its_words_are(alice):
    """ "Lives in Chengdu" is not among the statement's nearest memories by meaning; it fills the same slot."""
    home = write.add_memory(alice, "Lives in Chengdu", kind="fact").memory
    for other in (
        "我每天早上喝一杯美式咖啡",
        "我在学日语，准备明年去大阪玩",
        "我家的猫叫团子，三岁了",
        "周末喜欢去爬山",
    ):
        write.add_memory(alice, other, kind="preference")

    _learn(alice, "我们搬到重庆了，房子还在收拾")

    home.refresh_from_db()
    assert home.valid_until is not None


def test_the_same_value_said_again_replaces_nothing(alice):
    home = write.add_memory(alice, "Lives in Lisbon", kind="fact").memory

    _learn(alice, "Since I'm based in Lisbon, I like the tram")

    home.refresh_from_db()
    assert home.valid_until is None
