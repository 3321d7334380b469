"""What recall does with a memory's context and date, and with how a question is put (issue #8 step 5)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.utils import timezone

from memoryapp.engine.memories import write
from memoryapp.engine.memories.bulk import bulk_add
from memoryapp.engine.memories.validation import MemoryInput
from memoryapp.engine.recall.config import FullTextConfig, ScoringConfig
from memoryapp.engine.recall.recall import recall
from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY
from memoryapp.engine.text import date_words
from memoryapp.models import Memory

pytestmark = pytest.mark.django_db

SEARCH = RECALL_POSTGRES_ONLY.model_copy(update={"limit": 3})


def _first(user, query, config=SEARCH):
    return recall(user, query, config=config, record_access=False).memories[0]


def _months_ago(months: int) -> datetime:
    now = timezone.now()
    index = now.year * 12 + now.month - 1 - months
    return datetime(index // 12, index % 12 + 1, 9, 12, tzinfo=UTC)


def test_a_question_naming_a_month_finds_the_memory_dated_that_month(alice):
    """Nothing in the memory's words names the month: its date does."""
    dated = {
        months: write.add_memory(alice, content, valid_from=_months_ago(months)).memory
        for months, content in [
            (9, "Started a beginner pottery class"),
            (8, "Adopted a grey cat called Miso"),
            (6, "Ran my first half marathon in the rain"),
            (4, "Moved into the flat on Elm Street"),
            (3, "Learnt to make fresh pasta"),
        ]
    }
    month_year = date_words(_months_ago(6))
    assert dated[6].search_context == month_year
    assert _first(alice, f"What did I do in {month_year.title()}?") == dated[6]


def test_a_memory_is_found_through_the_message_it_was_learnt_from(alice):
    """The memory's own words say nothing about the knee; the message it came from did."""
    answer = write.add_memory(
        alice,
        "The doctor said it is nothing serious and to rest for two weeks",
        context="I finally had the scan on my left knee after the football injury",
    )
    write.add_memory(alice, "The dentist said to floss more often")
    write.add_memory(alice, "My knee brace is in the blue gym bag")
    found = recall(alice, "what did the doctor say about my knee injury?", config=SEARCH).items
    assert found[0].memory.pk == answer.memory.pk
    assert "full_text" in found[0].ranks
    # The context is searched, never shown: the memory reads as it was written.
    assert found[0].memory.content == "The doctor said it is nothing serious and to rest for two weeks"


def test_the_memorys_own_words_outrank_the_same_words_in_context(alice):
    own = write.add_memory(alice, "I play tennis on Saturdays")
    write.add_memory(alice, "That sounds fun", context="I play tennis on Saturdays")
    found = recall(
        alice,
        "when do I play tennis",
        config=SEARCH.model_copy(update={"vector": SEARCH.vector.model_copy(update={"enabled": False})}),
    )
    assert found.items[0].memory.pk == own.memory.pk


def test_an_edit_keeps_the_context_and_bulk_imports_carry_it(alice):
    first = write.add_memory(alice, "Booked the flight", context="trip to Lisbon in March").memory
    edited = write.edit_memory(first, {"content": "Booked the flights"}).memory
    assert edited.context == "trip to Lisbon in March"
    [imported] = bulk_add(
        alice.pk,
        [MemoryInput(content="Renewed my passport", context="before the Lisbon trip", valid_from=_months_ago(2))],
    )
    imported = Memory.objects.get(pk=imported.pk)
    assert imported.search_context == f"before the lisbon trip {date_words(_months_ago(2))}"
    found = {item.memory.pk: item for item in recall(alice, "lisbon passport", config=SEARCH).items}
    assert found[imported.pk].ranks["full_text"] == 1


def test_a_rare_word_in_the_question_outweighs_a_word_every_memory_has(alice):
    """BM25 full text: "coffee" is in most of this user's memories, "lisbon" in one; ts_rank_cd
    would weigh them alike."""
    for place in ("the office", "home", "the station", "Priya's flat", "the gym"):
        write.add_memory(alice, f"Had a coffee at {place} with a coffee cake")
    lisbon = write.add_memory(alice, "Walked around Lisbon all afternoon").memory
    bm25 = SEARCH.model_copy(
        update={
            "vector": SEARCH.vector.model_copy(update={"enabled": False}),
            "trigram": SEARCH.trigram.model_copy(update={"enabled": False}),
            "full_text": SEARCH.full_text.model_copy(update={"ranking": "bm25"}),
        }
    )
    found = recall(alice, "coffee in Lisbon", config=bm25, record_access=False)
    assert found.items[0].memory == lisbon and found.items[0].ranks["full_text"] == 1


def test_a_memory_learnt_in_chat_is_found_through_what_the_user_said(alice, llm_server, use_scripted_llm):
    from memoryapp.engine.llm.candidates import EXTRACT_MARKER
    from tasks.extraction import extract_messages
    from tests.integration.pipeline.conftest import candidates, chat

    knee, knee_ids = chat(alice, "My left knee hurt after football, so I saw the physio today")
    llm_server.script(EXTRACT_MARKER, candidates(("Was told to rest for two weeks", "fact")))
    extract_messages.apply(args=[knee.pk, knee_ids]).get()
    secret, secret_ids = chat(alice, "My password is hunter2 and I like jazz")
    llm_server.script(EXTRACT_MARKER, candidates(("Likes jazz", "preference")))
    extract_messages.apply(args=[secret.pk, secret_ids]).get()

    rest = Memory.objects.get(content="Was told to rest for two weeks")
    assert rest.context == "My left knee hurt after football, so I saw the physio today"
    assert recall(alice, "what did the physio say about my knee?", config=SEARCH).memories[0] == rest
    assert Memory.objects.get(content="Likes jazz").context == ""  # its message held a password: none kept


BEFORE_ISSUE_31 = SEARCH.model_copy(update={"full_text": FullTextConfig(), "scoring": ScoringConfig()})


@pytest.mark.parametrize(
    "question, answer, recent",
    [
        (
            "Where did we go camping with the kids?",
            "We went camping by the lake in Yosemite with the kids",
            "Camping gear is on sale this week",
        ),
        ("我们带孩子去哪里露营了？", "我们带孩子去黄山脚下的湖边露营了", "这周露营装备打折"),
    ],
)
def test_an_old_memory_that_answers_outranks_a_recent_one_that_shares_a_word(alice, question, answer, recent):
    """Over the whole history the match decides, not the date: the trip ten months ago answers, this
    week's sale only names camping. With the recency term (before issue #31) the sale came first."""
    old = write.add_memory(alice, answer, valid_from=_months_ago(10)).memory
    new = write.add_memory(alice, recent, valid_from=timezone.now()).memory
    write.add_memory(alice, "I water the plants on Sundays", valid_from=_months_ago(2))
    assert _first(alice, question, BEFORE_ISSUE_31) == new
    assert _first(alice, question) == old
