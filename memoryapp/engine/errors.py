"""Errors the engine raises; each carries one readable sentence for the caller to show."""

from __future__ import annotations


class EngineError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class MemoryValidationError(EngineError):
    """Input rejected before anything was written; `field` names the culprit."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class MemoryConflict(EngineError):
    """The change would break an invariant, e.g. restoring a copy of a memory that is active again."""


class MemoryNotFound(EngineError):
    pass
