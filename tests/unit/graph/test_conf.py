from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from memoryapp.graph import GraphUnavailable, get_graph, graph_enabled
from memoryapp.graph.conf import graph_config


def test_it_defaults_to_graphiti_with_one_graph_per_user(settings):
    settings.GRAPH_BACKEND = ""
    config = graph_config()
    assert config.backend == "graphiti"
    assert config.graph_name(7) == f"{config.namespace}_user_7"
    assert config.falkordb_url == settings.FALKORDB_URL


def test_it_rejects_an_unknown_backend_or_namespace(settings):
    settings.GRAPH_BACKEND = "neo4j"
    with pytest.raises(ImproperlyConfigured, match="GRAPH_BACKEND"):
        graph_config()
    settings.GRAPH_BACKEND = "graphiti"
    settings.GRAPH_NAMESPACE = "my graph!"
    with pytest.raises(ImproperlyConfigured, match="GRAPH_NAMESPACE"):
        graph_config()


def test_it_writes_rule_facts_in_batches_and_model_extraction_one_at_a_time(settings):
    from memoryapp.graph.graphiti import GraphitiGraph

    settings.GRAPH_SYNC_BATCH = 50
    assert graph_config().sync_batch == 50
    assert GraphitiGraph(graph_config()).sync_batch_size == 50
    settings.GRAPH_EXTRACTION = "model"
    assert GraphitiGraph(graph_config()).sync_batch_size == 1  # seconds of model calls per memory
    settings.GRAPH_SYNC_BATCH = 0
    with pytest.raises(ImproperlyConfigured, match="GRAPH_SYNC_BATCH"):
        graph_config()


def test_it_is_unavailable_when_switched_off(settings):
    settings.GRAPH_BACKEND = "off"
    with pytest.raises(GraphUnavailable, match="off"):
        get_graph()


def test_it_needs_a_zep_url_for_zep(settings):
    settings.GRAPH_BACKEND = "zep"
    settings.ZEP_API_URL = ""
    with pytest.raises(GraphUnavailable, match="ZEP_API_URL"):
        get_graph()


def test_it_tells_recall_whether_to_ask_the_graph(settings):
    settings.GRAPH_BACKEND = "off"
    assert graph_enabled() is False
    settings.GRAPH_BACKEND = "zep"
    settings.ZEP_API_URL = "http://zep.example:8000"
    assert graph_enabled() is True
    settings.GRAPH_BACKEND = "nonsense"
    assert graph_enabled() is False  # misconfigured: never raises into recall


def test_graphiti_needs_no_model_with_rules_extraction(settings, monkeypatch):
    from memoryapp.providers.llm import reset_llm
    from tests.support.fixtures import configure_llm

    configure_llm(monkeypatch, OPENAI_BASE_URL=None, OPENAI_API_KEY=None)
    reset_llm()
    settings.GRAPH_BACKEND = "graphiti"
    settings.GRAPH_EXTRACTION = ""
    assert graph_config().extraction == "rules"  # the default: the embedded install has a graph
    assert graph_enabled() is True
    settings.GRAPH_EXTRACTION = "model"
    assert graph_enabled() is False  # graphiti's own extraction waits for a model
    settings.GRAPH_EXTRACTION = "llm"
    with pytest.raises(ImproperlyConfigured, match="GRAPH_EXTRACTION"):
        graph_config()
    reset_llm()
