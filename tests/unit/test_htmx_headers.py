"""htmx's headers are django-htmx's to read and write (issue 30): `request.htmx` says a request came from
htmx, and its response classes (`HttpResponseClientRedirect`, `trigger_client_event`, ...) set the HX-*
answers. A module that spells an HX-* header itself is a second way of doing it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("memoryapp", "conversations", "tasks")
HX_HEADER = re.compile(r"""["'](?:HX-[A-Za-z-]+|HTTP_HX_[A-Z_]+)["']""")


def test_no_module_reads_or_sets_an_htmx_header_by_hand():
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if HX_HEADER.search(line)
    ]
    assert not found, f"use request.htmx and django_htmx.http instead: {found}"
