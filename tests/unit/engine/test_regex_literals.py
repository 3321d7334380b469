"""required_literals (engine/regex_literals.py): the words without which a pattern cannot match."""
from __future__ import annotations

import re

import pytest

from memoryapp.engine.regex_literals import required_literals


@pytest.mark.parametrize("pattern, words", [
    (r"\bpass\s*word", {"pass"}),  # either run of letters would do; the first of the longest is named
    (r"my\s+password|pin码", {"password", "pin码"}),  # one word per alternative
    (r"(?:verification|login)\s+code", {"verification", "login"}),  # the part whose shortest word is longest
    (r"(?:ab)+x", {"ab"}),
    (r"(?:ab)*cd", {"cd"}),  # what may repeat no times is not needed
    (r"(?<!\bI )\bpins?\b", {"pin"}),
])
def test_it_names_the_words_every_match_needs(pattern, words):
    assert required_literals(pattern, re.IGNORECASE) == words


@pytest.mark.parametrize("pattern", [r"\d{3}|pin", r"[a-z]+", r"(?:pin)?\d+"])
def test_it_names_none_when_an_alternative_needs_no_word(pattern):
    assert required_literals(pattern) is None


@pytest.mark.parametrize("text", ["The PASSWORD is x", "my login code", "pin码 1234", "abab x", "I pin it"])
def test_a_text_that_matches_holds_one_of_the_words(text):
    for pattern in (r"my\s+password|pin码|the\s+password", r"(?:verification|login)\s+code", r"(?:ab)+\s*x"):
        words = required_literals(pattern, re.IGNORECASE)
        if re.search(pattern, text, re.IGNORECASE):
            assert any(word.lower() in text.lower() for word in words)
