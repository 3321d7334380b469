"""Each validation rule is defined once, in memoryapp/engine/memories/validation.py (issue 30): the API's schemas,
the forms, the chat and import use it from there. A NUL check written anywhere else is a second
definition of "Postgres text cannot hold NUL", and the copies drift (there were five)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "memoryapp" / "engine" / "memories" / "validation.py"
PACKAGES = ("memoryapp", "conversations", "tasks")

# A string that is the NUL character and nothing else, however Python spells it: what a check tests
# for (`"\x00" in text`), strips (`.replace("\0", "")`) or compares against; or `chr(0)`.
NUL_ALONE = re.compile(r"""(?<![\w"'])[rRbBuU]?(["'])(?:\\x00|\\0+|\\u0000|\\U00000000|\x00)\1|\bchr\(\s*0\s*\)""")


def nul_checks(source: str) -> list[int]:
    """The lines of `source` that spell the NUL character on its own."""
    return [number for number, line in enumerate(source.splitlines(), start=1) if NUL_ALONE.search(line)]


@pytest.mark.parametrize(
    "line",
    [
        'if "\\x00" in text:',
        "if '\\0' in q:",
        'query.replace("\\x00", "")',
        'NUL = "\\u0000"',
        "value.find(chr(0))",
        'if "\x00" in text:',
    ],
)
def test_it_recognises_a_nul_check(line):
    assert nul_checks(line) == [1]


@pytest.mark.parametrize(
    "line",
    [
        'version = sha256(f"{content}\\x00{valid_from}".encode())',  # a separator inside a string, not a check
        "if has_nul(text):",
        'b"\\x001"',
        "limit = chr(10)",
    ],
)
def test_it_leaves_other_text_alone(line):
    assert nul_checks(line) == []


def test_it_finds_the_nul_rule_in_the_validation_module():
    assert nul_checks(RULES.read_text()), "the rule moved: point RULES at its module"


def test_no_nul_check_is_written_outside_the_validation_module():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != RULES
        for line in nul_checks(path.read_text())
    ]
    assert not found, f"NUL checked outside {RULES.relative_to(ROOT)} (use validation.has_nul or Text): {found}"
