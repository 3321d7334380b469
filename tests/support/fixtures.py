"""Pytest fixtures for the scripted language model; conftest imports them.

from tests.support.fixtures import llm_server, scripted_llm, use_scripted_llm  # noqa: F401
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from memoryapp.providers.llm import LLMProvider, OpenAICompatibleLLM, get_llm, reset_llm

from .llm_server import ScriptedLLMServer


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    """A fresh ScriptedLLMServer per test, stopped afterwards."""
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
def scripted_llm(llm_server: ScriptedLLMServer) -> OpenAICompatibleLLM:
    """The real OpenAI-compatible client pointed at `llm_server`, with short timeouts."""
    return OpenAICompatibleLLM(base_url=llm_server.url, api_key="test-key", model="scripted-model", timeout=5)


def configure_llm(monkeypatch: pytest.MonkeyPatch, **values: str | None) -> None:
    """Set LLM settings for one test in the environment and, when Django is in play, in settings.

    Django settings read the environment once, at import, so patching only the environment is
    not enough once they are loaded. None removes a value. Call `reset_llm()` afterwards.
    """
    from django.conf import settings

    django_on = settings.configured or os.environ.get("DJANGO_SETTINGS_MODULE")
    for name, value in values.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
        if django_on:
            monkeypatch.setattr(settings, name, value, raising=False)


@pytest.fixture
def use_scripted_llm(llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMProvider]:
    """Point `get_llm()` (what the app uses) at `llm_server` for this test; yields that provider."""
    configure_llm(monkeypatch, OPENAI_BASE_URL=llm_server.url, OPENAI_API_KEY="test-key", LLM_TIMEOUT_SECONDS="5")
    reset_llm()
    yield get_llm()
    reset_llm()


@pytest.fixture
def use_offline_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No model configured, as on the embedded default: `get_llm()` is None for this test (the engine runs
    each task's default)."""
    configure_llm(monkeypatch, OPENAI_BASE_URL=None, OPENAI_API_KEY=None)
    reset_llm()
    yield get_llm()
    reset_llm()
