"""What the memory graph page asks the graph: a user's entities and the facts between them, bounded."""

from __future__ import annotations

import logging

from .backend import get_graph
from .errors import GraphError, GraphUnavailable
from .port import GraphMap, GraphPort

log = logging.getLogger(__name__)


def user_map(user_id: int, *, limit: int, timeout_s: float = 1.0, graph: GraphPort | None = None) -> GraphMap:
    """The user's entities and facts, at most `limit` of each. Raises GraphUnavailable, and nothing else, when
    the graph is off, down, slower than `timeout_s`, or its backend lists no entities (Zep 2 gives facts per
    session only): the page then draws what Postgres knows."""
    adapter = graph or get_graph()
    map_of_user = getattr(adapter, "map_of_user", None)
    if map_of_user is None:
        raise GraphUnavailable(f"the {adapter.name} graph lists no entities")
    try:
        return map_of_user(user_id, limit=limit, timeout_s=timeout_s)
    except GraphUnavailable:
        raise
    except GraphError as exc:
        raise GraphUnavailable(exc.message) from exc
    except Exception as exc:  # the page must draw without it
        log.exception("reading the user's graph failed")
        raise GraphUnavailable(f"{type(exc).__name__}: {exc}") from exc
