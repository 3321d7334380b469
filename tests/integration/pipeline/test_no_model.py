"""With no model the pipeline runs each task's default in the engine (engine/llm/defaults.py): no provider
is built or asked, even where the settings name one (`llm=None` is "no model", not "the configured one")."""
from __future__ import annotations

import pytest
from django.utils import timezone

from memoryapp.engine.learning import extraction
from memoryapp.engine.memories import write
from memoryapp.engine.learning.consolidation import consolidate
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


def test_an_episode_is_summarised_by_rule_without_a_model(alice, unreachable_model):
    conversation, _ids = chat(alice, "I have an interview tomorrow. Also a game tonight.")
    conversation.ended_at = timezone.now()
    conversation.save(update_fields=["ended_at"])

    (episode,) = consolidate(conversation, llm=None)

    memory = Memory.objects.get(pk=episode.memory_id)
    assert memory.kind == "episode"
    assert memory.content.endswith("] Talked about: I have an interview tomorrow; Also a game tonight")
