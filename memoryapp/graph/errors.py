"""Graph errors: one base, each subclass builds its own message (like graphiti_core/errors.py).

Callers (recall, the sync task) catch `GraphError` in exactly one place each; `GraphUnavailable`
means "try again later" (off, down, slow, or no language model to build it with).
"""

from __future__ import annotations


class GraphError(Exception):
    """Base for everything the graph package raises."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GraphUnavailable(GraphError):
    """The graph is switched off, unreachable, slower than the caller's budget, or cannot be built now."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"The memory graph is unavailable: {reason}")
        self.reason = reason


class GraphOffline(GraphUnavailable):
    """No language model is configured, so the graph cannot be written (syncs wait as pending)."""

    def __init__(self) -> None:
        super().__init__("no language model is configured (offline mode); syncs wait until one is")


class GraphOutputError(GraphError):
    """The graph engine or its model produced something unusable; retrying the same input will not help."""

    def __init__(self, what: str) -> None:
        super().__init__(f"The memory graph could not process this memory: {what}")
