"""Pick the configured graph adapter (GRAPH_BACKEND), built once per process and per settings."""
from __future__ import annotations

import functools

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


def reset_graph() -> None:
    """Forget the adapter and its connections (settings changed, or a test switched servers)."""
    from . import runner

    get_graph.cache_clear()
    runner.reset()
