"""Pick the configured graph adapter (GRAPH_BACKEND), built once per process and per settings."""

from __future__ import annotations

import functools

from django.core.signals import setting_changed

from .conf import graph_config
from .errors import GraphUnavailable
from .port import GraphPort


@functools.lru_cache(maxsize=1)
def get_graph() -> GraphPort:
    """The adapter in use; raises GraphUnavailable when the graph is switched off."""
    config = graph_config()
    if config.backend == "off":
        raise GraphUnavailable("GRAPH_BACKEND is off")
    if config.backend == "zep":
        from .zep import ZepGraph

        return ZepGraph(config)
    from .graphiti import GraphitiGraph

    return GraphitiGraph(config)


def graph_recall_enabled() -> bool:
    """Whether recall should ask the graph. `auto` asks it when a model built its facts (graphiti's
    extraction, or Zep's): the rules-built graph of the default install found nothing Postgres recall had
    not (LoCoMo dev recall@10 0.722 off, 0.721 on) at 5x the p95 (docs/benchmarks/locomo-graph.md), so there it is
    written, drawn and rebuilt, and asked only with GRAPH_RECALL=on."""
    try:
        config = graph_config()
        if config.recall == "off" or not graph_enabled():
            return False
        return config.recall == "on" or config.backend == "zep" or config.extraction == "model"
    except Exception:
        return False


def graph_enabled() -> bool:
    """Whether recall should ask the graph at all. Cheap (loads no adapter) and never raises."""
    try:
        config = graph_config()
        if config.backend == "off":
            return False
        if config.backend == "zep":
            return bool(config.zep_api_url)
        if config.extraction == "rules":
            return bool(config.falkordb_url)  # facts are written without a model
        from memoryapp.providers.llm import llm_configured

        # graphiti's extraction without a model has built nothing to search (syncs wait as pending).
        return bool(config.falkordb_url) and llm_configured()
    except Exception:
        return False


def reset_graph() -> None:
    """Forget the adapter and its connections (settings changed, or a test switched servers)."""
    from . import runner

    get_graph.cache_clear()
    runner.reset()


# Settings changed (override_settings in tests): the config and the adapter built from it are read again.
_WATCHED = {"FALKORDB_URL", "ZEP_API_URL", "ZEP_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "LLM_MODEL"}


def _on_setting_changed(setting: str, **kwargs: object) -> None:
    if setting.startswith("GRAPH_") or setting in _WATCHED or setting.startswith("EMBEDDING_"):
        graph_config.cache_clear()
        reset_graph()


setting_changed.connect(_on_setting_changed)
