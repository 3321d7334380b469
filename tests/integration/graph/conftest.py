"""Fixtures for the graph suites: the real FalkorDB (embedded Redis, settings.FALKORDB_URL), a fresh
graph namespace per test, and graphiti's model calls answered by ScriptedLLMServer + GraphitiScript."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime

import pytest
import redis
from django.conf import settings as django_settings

from memoryapp.engine.text import content_key
from memoryapp.graph import reset_graph
from memoryapp.models import Memory
from memoryapp.providers.llm import reset_llm
from tests.support.fixtures import configure_llm
from tests.support.llm_server import ScriptedLLMServer

from .graphiti_script import GraphitiScript


@pytest.fixture
def graph_namespace(settings) -> Iterator[str]:
    """Each test writes its own graphs (user ids repeat across test sessions) and removes them after."""
    namespace = f"t{uuid.uuid4().hex[:10]}"
    url = django_settings.FALKORDB_URL  # tests may point the graph elsewhere; clean the shared one
    settings.GRAPH_BACKEND = "graphiti"
    settings.GRAPH_NAMESPACE = namespace
    yield namespace
    reset_graph()
    client = redis.Redis.from_url(url)
    try:
        for name in client.execute_command("GRAPH.LIST"):
            name = name.decode() if isinstance(name, bytes) else name
            if name.startswith(f"{namespace}_"):
                client.execute_command("GRAPH.DELETE", name)
    finally:
        client.close()


@pytest.fixture
def graph_script(llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch, settings) -> Iterator[GraphitiScript]:
    """A configured model (the scripted server) answering graphiti's prompts (GRAPH_EXTRACTION=model)."""
    settings.GRAPH_EXTRACTION = "model"
    script = GraphitiScript()
    llm_server.default = script
    configure_llm(monkeypatch, OPENAI_BASE_URL=llm_server.url, OPENAI_API_KEY="test-key", LLM_TIMEOUT_SECONDS="10")
    reset_llm()
    yield script
    reset_llm()


@pytest.fixture
def graph(graph_namespace: str, graph_script: GraphitiScript):
    from memoryapp.graph import get_graph

    return get_graph()


def make_memory(user, content: str, *, valid_from: datetime | None = None, **fields) -> Memory:
    if valid_from is not None:
        fields["valid_from"] = valid_from
    return Memory.objects.create(user=user, content=content, content_key=content_key(content), **fields)


@pytest.fixture
def no_model(graph_namespace, monkeypatch):
    """No language model configured: the graph is built by the rules (GRAPH_EXTRACTION's default)."""
    configure_llm(monkeypatch, OPENAI_BASE_URL=None, OPENAI_API_KEY=None)
    reset_llm()
    yield
    reset_llm()
