"""bench.history_data: a realistic export of one user's history in both formats, deterministic by seed."""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from datetime import date

import pytest

from bench import history_data
from bench.history_text import CITY_AFTER, CITY_BEFORE, MOVED_ON
from memoryapp.engine.history.exports import open_export
from memoryapp.engine.history.formats import ExportFormat


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return history_data.write_exports(tmp_path_factory.mktemp("history"), conversations=300, seed=7)


def conversations(path):
    with open_export(path) as export:
        return export.format, list(export)


def test_it_is_the_same_file_for_the_same_seed(files, tmp_path):
    again = history_data.write_exports(tmp_path, conversations=300, seed=7)
    other = history_data.write_exports(tmp_path / "other", conversations=300, seed=8)

    assert again.chatgpt_json.read_bytes() == files.chatgpt_json.read_bytes()
    assert again.claude_json.read_bytes() == files.claude_json.read_bytes()
    assert other.chatgpt_json.read_bytes() != files.chatgpt_json.read_bytes()


def test_the_zip_holds_what_an_export_holds(files):
    with zipfile.ZipFile(files.chatgpt_zip) as z:
        assert sorted(z.namelist()) == ["chat.html", "conversations.json", "message_feedback.json", "user.json"]
        assert z.read("conversations.json") == files.chatgpt_json.read_bytes()
    with zipfile.ZipFile(files.claude_zip) as z:
        assert sorted(z.namelist()) == ["conversations.json", "projects.json", "users.json"]


def test_both_formats_hold_the_same_conversations(files):
    chatgpt_format, chatgpt = conversations(files.chatgpt_zip)
    claude_format, claude = conversations(files.claude_zip)

    assert (chatgpt_format, claude_format) == (ExportFormat.CHATGPT, ExportFormat.CLAUDE)
    # ChatGPT's file lists the newest first, Claude's the oldest; the words and times are the same.
    said = [[(m.role, m.text, m.created_at) for m in c.messages] for c in reversed(chatgpt)]
    assert said == [[(m.role, m.text, m.created_at) for m in c.messages] for c in claude]
    assert [c.created_at for c in claude] == sorted(c.created_at for c in claude)


def test_it_is_a_varied_history_over_four_years_in_both_languages(files):
    _, read = conversations(files.claude_json)
    truth = json.loads(files.truth.read_text())

    assert truth["conversations"] == len(read) == 300
    assert {c.created_at.year for c in read} == {2023, 2024, 2025, 2026}
    assert 17 <= truth["messages"] / len(read) <= 23  # about 20 messages, 10 user turns
    users = [m.text for c in read for m in c.messages if m.role == "user"]
    assert len(users) == truth["user_turns"]
    chinese = sum(1 for t in users if any("\u4e00" <= ch <= "\u9fff" for ch in t))
    assert 0.3 < chinese / len(users) < 0.6
    assert len(set(users)) > 0.4 * len(users)  # not one template (short follow-ups like "thanks" do repeat)
    assert len({c.title for c in read}) > 60
    assert max(Counter(users).values()) < 0.05 * len(users)


def test_the_user_lives_in_one_city_and_then_another(files):
    _, read = conversations(files.chatgpt_json)
    stated = [
        (c.created_at.date(), m.text)
        for c in read
        for m in c.messages
        if m.role == "user" and any(city in m.text for city in (*CITY_BEFORE.values(), *CITY_AFTER.values()))
    ]

    before = [day for day, text in stated if day.year == 2023]
    after = [day for day, text in stated if day >= MOVED_ON]
    assert len(before) >= 10 and all(
        any(c in text for c in CITY_BEFORE.values()) for day, text in stated if day.year == 2023
    )
    assert len(after) >= 10
    for day, text in stated:
        if day >= date(2025, 8, 1):  # settled: only the new city
            assert not any(c in text for c in CITY_BEFORE.values()), text
    assert any(day.year == 2025 and any(c in text for c in CITY_AFTER.values()) for day, text in stated)


def test_chatgpt_conversations_carry_branches_tools_and_flags(files):
    data = json.loads(files.chatgpt_json.read_text())
    branched = sum(1 for c in data if any(len(node["children"]) > 1 for node in c["mapping"].values()))
    roles = Counter(
        node["message"]["author"]["role"] for c in data for node in c["mapping"].values() if node["message"]
    )

    assert branched > 30
    assert roles["tool"] > 0 and roles["system"] == len(data)
    assert any(c["is_archived"] for c in data)
