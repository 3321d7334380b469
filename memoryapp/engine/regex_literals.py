"""Words a regular expression cannot match without: a cheap test that proves a text holds no match.

`required_literals(pattern)` reads the pattern's parse tree (Python's own parser) and returns strings of which
every match contains at least one, or None when it cannot say (an alternative made of classes and
assertions only). A text that contains none of them, compared as the pattern compares (case-insensitively
here, for ASCII text exactly as `str.lower`), cannot match: no need to run the pattern. The secrets check
(sensitive.py) uses it to skip its rules for the texts that name no credential, most of them.
"""
from __future__ import annotations

import re

try:  # the parser behind `re.compile`: `re._parser` from Python 3.11, `sre_parse` before
    from re import _constants as _codes
    from re import _parser
except ImportError:  # pragma: no cover
    import sre_constants as _codes
    import sre_parse as _parser

_REPEATS = tuple(getattr(_codes, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(_codes, name))


def required_literals(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """Strings one of which every match of `pattern` contains, or None when there are none to name."""
    try:
        tree = _parser.parse(pattern, flags)
    except (re.error, AttributeError, TypeError):  # pragma: no cover - a parser that changed shape
        return None
    found = _sequence(list(tree))
    return frozenset(found) if found else None


def _sequence(items: list) -> set[str] | None:
    """A sequence needs what any one of its parts needs: the part whose shortest word is longest (a run of
    plain characters is one word), the most telling one."""
    candidates: list[set[str]] = []
    run = ""
    for op, value in items:
        if op is _codes.LITERAL:
            run += chr(value)
            continue
        if run:
            candidates.append({run})
            run = ""
        needed = _part(op, value)
        if needed:
            candidates.append(needed)
    if run:
        candidates.append({run})
    return max(candidates, key=lambda words: min(map(len, words)), default=None)


def _part(op, value) -> set[str] | None:
    if op is _codes.SUBPATTERN:
        return _sequence(list(value[-1]))
    if op is _codes.BRANCH:  # every alternative must need something
        alternatives = [_sequence(list(branch)) for branch in value[1]]
        return None if any(not words for words in alternatives) else set().union(*alternatives)
    if op in _REPEATS:
        low, _high, item = value
        return _sequence(list(item)) if low >= 1 else None
    return None  # classes, assertions, anchors, back-references: nothing certain
