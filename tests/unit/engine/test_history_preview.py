"""The preview of an export (engine/history/preview.py): what it holds, from one streaming pass."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.history_data import write_exports
from memoryapp.engine.history.exports import NotAnExport
from memoryapp.engine.history.formats import ExportFormat
from memoryapp.engine.history.preview import MEMORIES_PER_USER_TURN, preview_export, totals

FIXTURES = Path(__file__).parent / "history_exports"


def test_it_counts_conversations_dates_and_turns_with_a_row_each():
    preview = preview_export(FIXTURES / "chatgpt_conversations.json")

    assert preview.format is ExportFormat.CHATGPT
    assert [(r.title, r.user_turns, r.messages, r.selected) for r in preview.rows] == [
        ("Moving plans and a bike", 2, 4, True),
        ("搬家以后的周末安排", 2, 4, True),
        ("Old tax question", 1, 2, False),  # archived: unticked at first
    ]
    assert preview.rows[1].id == "6a1b3c5d-0002-4e2f-9a1b-chatgpt00002"
    assert preview.all.conversations == 3 and preview.all.user_turns == 5
    assert preview.all.first == datetime.fromtimestamp(1689416400.123, UTC)
    assert preview.all.last == datetime.fromtimestamp(1741593600.0, UTC)
    # What is ticked at first leaves out the archived chat of 1 January 2024.
    assert preview.selected.conversations == 2 and preview.selected.user_turns == 4
    assert preview.selected.first == preview.all.first
    assert preview.skipped == ()


def test_the_totals_follow_what_the_user_leaves_ticked():
    preview = preview_export(FIXTURES / "claude_conversations.json")
    since_2024 = [r for r in preview.rows if r.created_at and r.created_at.year >= 2024]

    picked = totals(since_2024)

    assert picked.conversations == 2 and picked.user_turns == 4
    assert picked.first == datetime(2024, 2, 3, 9, 15, 22, 418211, tzinfo=UTC)
    assert totals([]).first is None and totals([]).expected_memories == 0


def test_it_expects_memories_at_the_documented_rate(tmp_path):
    files = write_exports(tmp_path, conversations=200, seed=5)
    truth = json.loads(files.truth.read_text())

    preview = preview_export(files.chatgpt_zip)

    assert preview.all.conversations == 200
    assert preview.all.user_turns == truth["user_turns"]
    assert preview.all.expected_memories == round(truth["user_turns"] * MEMORIES_PER_USER_TURN)
    assert preview.all.first.year == 2023 and preview.all.last.year == 2026
    flagged = [r for r in preview.rows if r.archived or r.temporary]
    assert preview.selected.conversations == 200 - len(flagged)


def test_a_file_that_is_neither_has_no_preview(tmp_path):
    path = tmp_path / "memories.json"
    path.write_text('{"memories": []}')

    with pytest.raises(NotAnExport, match="memories.json is neither a ChatGPT nor a Claude export"):
        preview_export(path)
