"""Errors raised by language-model providers.

Callers catch `ProviderError` in one place (the task or the chat consumer) and use
`retryable` to decide between "try again later" and "tell the user / give up".
"""

from __future__ import annotations


class ProviderError(Exception):
    """The language model could not do what was asked; `message` is one readable sentence."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable

    def __str__(self) -> str:
        return self.message


class ProviderOutputError(ProviderError):
    """The model answered, but its output failed validation even after the follow-up retries.

    `raw` keeps the last answer verbatim so it can be logged; the batch itself is not lost
    and can run again, so this is not marked retryable by default.
    """

    def __init__(self, message: str, *, raw: str, task: str = "", retryable: bool = False) -> None:
        super().__init__(message, retryable=retryable)
        self.raw = raw
        self.task = task
