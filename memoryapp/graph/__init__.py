"""The temporal graph beside Postgres: a port (port.py) and its adapters (graphiti.py, zep.py).

Public surface, light to import (graphiti loads only when a graph is used):

    search_memory_ids(user_id, query, *, at, limit, include_history, timeout_s, query_vector) -> [(memory_id, score)]
    user_map(user_id, *, limit, timeout_s) -> GraphMap   entities and facts, for the memory graph page
    graph_enabled() -> bool             whether the graph is there to write and read (cheap, never raises)
    graph_recall_enabled() -> bool      whether recall should ask it (GRAPH_RECALL; cheap, never raises)
    get_graph() -> GraphPort            the configured adapter (GRAPH_BACKEND)
    GraphError, GraphUnavailable        the only exceptions callers see

Changes reach the graph through the `memory_changed` receiver in tasks/receivers.py (connected in
TasksConfig.ready()), which queues the sync jobs that call sync.py.
"""

from __future__ import annotations

from .backend import get_graph, graph_enabled, graph_recall_enabled, reset_graph
from .errors import GraphError, GraphOffline, GraphOutputError, GraphUnavailable
from .port import GraphEntity, GraphFact, GraphHealth, GraphMap, GraphPort, GraphRelation
from .recall import search_memory_ids
from .user_map import user_map

__all__ = [
    "GraphEntity",
    "GraphError",
    "GraphFact",
    "GraphHealth",
    "GraphMap",
    "GraphOffline",
    "GraphOutputError",
    "GraphPort",
    "GraphRelation",
    "GraphUnavailable",
    "get_graph",
    "graph_enabled",
    "graph_recall_enabled",
    "reset_graph",
    "search_memory_ids",
    "user_map",
]
