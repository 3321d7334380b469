"""The model seam is shaped like a model: complete, complete_json, stream (and embed for embedders).

What to ask a model and what to do without one are the engine's (memoryapp/engine/llm/); a provider
that grew a domain method (extract, decide, summarise...) would bring prompts back under providers/.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from memoryapp.providers.embeddings.base import Embedder
from memoryapp.providers.llm import LLMProvider, OpenAICompatibleLLM, get_llm, llm_configured, reset_llm
from tests.support.fixtures import configure_llm

PROVIDERS = Path(__file__).resolve().parents[3] / "memoryapp" / "providers"


def _methods(protocol: type) -> set[str]:
    return {name for name, value in vars(protocol).items() if inspect.isfunction(value) and not name.startswith("_")}


def test_a_language_model_only_completes() -> None:
    assert _methods(LLMProvider) == {"complete", "complete_json", "stream"}


def test_an_embedder_only_embeds() -> None:
    assert _methods(Embedder) <= {"embed", "embed_one"}


def test_the_openai_client_is_a_provider_and_nothing_more() -> None:
    client = OpenAICompatibleLLM(base_url="http://127.0.0.1:9/v1", api_key="k", model="m", max_retries=0)
    assert isinstance(client, LLMProvider)
    public = {name for name in dir(client) if not name.startswith("_") and callable(getattr(client, name))}
    assert public == {"complete", "complete_json", "stream"}


def test_no_prompt_lives_under_providers() -> None:
    for path in PROVIDERS.rglob("*.py"):
        assert "[memoryapp:" not in path.read_text(), f"{path} holds a task's prompt: it belongs in engine/llm/"


def test_no_model_is_none_not_a_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    configure_llm(monkeypatch, OPENAI_BASE_URL=None, OPENAI_API_KEY=None)
    reset_llm()
    try:
        assert get_llm() is None and not llm_configured()
    finally:
        reset_llm()


def test_it_follows_changed_django_settings_without_a_manual_reset(settings) -> None:
    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = None, None
    assert get_llm() is None
    settings.OPENAI_BASE_URL, settings.LLM_MODEL = "http://127.0.0.1:9/v1", "model-from-settings"
    configured = get_llm()  # setting_changed dropped the cached answer
    assert isinstance(configured, OpenAICompatibleLLM) and configured.model == "model-from-settings"
    assert llm_configured()
