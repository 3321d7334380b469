from __future__ import annotations


class StackError(Exception):
    """An embedded server could not start; the message is one line that says what to do."""
