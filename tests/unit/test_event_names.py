"""One vocabulary for memory events: each name is spelt once, in `MemoryEventType` (memoryapp/events.py).

Python, templates and JS take it from there (the consumer renders frames with it); a name written by hand
anywhere else in the app fails here, as `memory.created` once did in eight files.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from memoryapp.events import MemoryEventType

ROOT = Path(settings.BASE_DIR)
HOME = ROOT / "memoryapp" / "events.py"
SOURCES = ["memoryapp/**/*.py", "conversations/**/*.py", "tasks/**/*.py", "templates/**/*.html", "static/js/*.js"]
# A name as a whole word: `memory.created_at` is an attribute, not the event.
NAME = re.compile("|".join(rf"\b{re.escape(name)}(?![\w])" for name in MemoryEventType.values))


def _sources() -> list[Path]:
    files = {path for pattern in SOURCES for path in ROOT.glob(pattern)}
    return sorted(path for path in files if "migrations" not in path.parts and path != HOME)


def test_every_event_name_is_spelt_only_in_its_enum():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {match.group(0)}"
        for path in _sources()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for match in NAME.finditer(line)
    ]
    assert found == [], "event names spelt outside MemoryEventType:\n" + "\n".join(found)


def test_it_reads_the_places_names_used_to_hide():
    names = {path.relative_to(ROOT).as_posix() for path in _sources()}
    assert {
        "memoryapp/web/consumers.py",
        "static/js/memories.js",
        "static/js/chat.js",
        "templates/memoryapp/memories.html",
        "memoryapp/engine/memories/write.py",
    } <= names


def test_the_vocabulary_is_the_one_the_design_names():
    assert {"memory.created", "memory.updated", "memory.deleted", "memory.forgotten", "memory.restored"} <= set(
        MemoryEventType.values
    )
