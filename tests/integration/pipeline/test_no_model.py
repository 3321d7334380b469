"""With no model the pipeline runs each task's default in the engine (engine/llm/defaults.py): no provider
is built or asked, even where the settings name one (`llm=None` is "no model", not "the configured one")."""

from __future__ import annotations

import pytest
from django.utils import timezone

from memoryapp.engine.learning import extraction
from memoryapp.engine.learning.consolidation import consolidate
from memoryapp.engine.memories import write
from memoryapp.models import Memory
from memoryapp.providers.llm import reset_llm
from tests.support.fixtures import configure_llm

from .conftest import chat

pytestmark = pytest.mark.django_db


@pytest.fixture
def unreachable_model(monkeypatch):
    """A configured model nothing can reach: any call to it would fail the test."""
    configure_llm(monkeypatch, OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="k", LLM_TIMEOUT_SECONDS="1")
    reset_llm()
    yield
    reset_llm()


def test_extraction_learns_by_rule_and_calls_no_model(alice, unreachable_model):
    vue = write.add_memory(alice, "我喜欢用 Vue 3 写前端", kind="preference").memory
    conversation, ids = chat(alice, "我现在更喜欢用 React 了", "I drink green tea every morning. What is a monad?")
    run, _created = extraction.queue_run(conversation, ids)
    assert extraction.claim(run)

    outcome = extraction.extract(run, llm=None)

    assert outcome.run.status == "done" and outcome.run.llm_calls == 0
    assert outcome.applied == {"UPDATE": 1, "ADD": 1}
    vue.refresh_from_db()
    assert vue.valid_until is not None and vue.replaced_by.content == "我现在更喜欢用 React 了"
    assert Memory.objects.filter(content="I drink green tea every morning").exists()


def _ended(conversation):
    conversation.ended_at = timezone.now()
    conversation.save(update_fields=["ended_at"])
    return conversation


@pytest.mark.parametrize(
    "turns, episode",
    [
        (
            ("We decided to skip the game tonight, because the interview is tomorrow at 10. Also I like tea.",),
            "We decided to skip the game tonight, because the interview is tomorrow at 10.",
        ),
        (
            ("我喜欢喝乌龙茶。我们决定把预发环境下周一迁到 Kubernetes，迁移前先冻结代码",),
            "我们决定把预发环境下周一迁到 Kubernetes，迁移前先冻结代码。",
        ),
    ],
)
def test_a_chat_with_a_decision_leaves_one_episode_in_whole_sentences(alice, unreachable_model, turns, episode):
    conversation = _ended(chat(alice, *turns)[0])

    (written,) = consolidate(conversation, llm=None)

    memory = Memory.objects.get(pk=written.memory_id)
    assert memory.kind == "episode"
    assert memory.content.split("] ", 1)[1] == episode  # the decision, whole; not the preference, not cut


@pytest.mark.parametrize(
    "turns",
    [
        ("I live in Berlin and I like tea. Any café tips?",),
        ("我住在上海。我喜欢喝乌龙茶。附近有什么好的茶馆吗？",),
        ("hi", "thanks!"),
    ],
)
def test_a_short_chat_that_only_yields_typed_memories_leaves_no_episode(alice, unreachable_model, turns):
    conversation = _ended(chat(alice, *turns)[0])

    assert [episode.memory_id for episode in consolidate(conversation, llm=None)] == [None]  # nothing to keep
    assert consolidate(conversation, llm=None) == []  # and the window is not asked about again
    assert not Memory.objects.filter(user=alice, kind="episode").exists()


def test_manage_consolidate_says_when_a_chat_left_no_episode(alice, unreachable_model, monkeypatch):
    from io import StringIO

    from django.core.management import call_command

    monkeypatch.setattr("memoryapp.engine.learning.consolidation.resolve", lambda llm: None)
    conversation = _ended(chat(alice, "I live in Berlin and I like tea. Any café tips?")[0])
    out = StringIO()
    call_command("consolidate", "--conversation", str(conversation.pk), stdout=out, stderr=StringIO())
    assert "no episode (nothing beyond the memories it taught)" in out.getvalue()
    assert "0 episode(s) written" in out.getvalue()
