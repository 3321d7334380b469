"""Saved memories pasted as text on the memories page (issue #44 item 3): a preview of each line first,
nothing written; then Save writes the good ones through the write path (merged, replaced, dated), never a
secret."""

from __future__ import annotations

import pytest
from django.utils import translation

from memoryapp.engine.memories.pasted import read_lines
from memoryapp.engine.memories.write import add_memory
from memoryapp.models import Memory

pytestmark = pytest.mark.django_db

PASTED = """Here is what I remember about you:
- Prefers concise answers in bullet points.
- 2023-05-02: Lives in Chengdu
- Lives in Berlin (2025-04-12)
• 我对花生过敏（2023年5月）
1. 目标：明年考下CPA
2) My password is hunter2
- Prefers concise answers in bullet points.
"""


def test_each_line_is_read_with_its_day_and_a_secret_is_refused():
    with translation.override("en"):  # the refusal is said in the language of the request
        lines = {line.content: line for line in read_lines(PASTED)}
    assert list(lines) == [
        "Prefers concise answers in bullet points.",
        "Lives in Chengdu",
        "Lives in Berlin",
        "我对花生过敏",
        "目标：明年考下CPA",
        "My password is hunter2",
    ]
    assert lines["Lives in Chengdu"].day.isoformat() == "2023-05-02"
    assert lines["我对花生过敏"].day.isoformat() == "2023-05-01"
    assert not lines["My password is hunter2"].ok and "password" in lines["My password is hunter2"].problem
    assert all(line.ok for name, line in lines.items() if "password" not in name)


def test_the_preview_writes_nothing_and_save_writes_the_good_lines(alice, alice_client):
    add_memory(alice, "Prefers concise answers in bullet points.")
    preview = alice_client.post("/settings/memories/paste", {"text": PASTED})
    assert preview.status_code == 200
    page = preview.content.decode()
    assert "Lives in Chengdu" in page and "我对花生过敏" in page and "hunter2" in page
    assert Memory.objects.filter(user=alice).count() == 1

    saved = alice_client.post("/settings/memories/paste", {"text": PASTED, "save": "1"}, follow=True)
    assert saved.status_code == 200 and "Saved 4 new memories" in saved.content.decode()
    current = {m.content for m in Memory.objects.filter(user=alice, valid_until__isnull=True)}
    assert {"我对花生过敏", "目标：明年考下CPA", "Lives in Berlin"} <= current
    assert not Memory.objects.filter(user=alice, content__contains="hunter2").exists()
    assert Memory.objects.filter(user=alice, content="Prefers concise answers in bullet points.").count() == 1
    chengdu = Memory.objects.get(user=alice, content="Lives in Chengdu")
    assert chengdu.valid_from.date().isoformat() == "2023-05-02"


def test_a_paste_with_no_memories_says_so_in_chinese(alice, alice_client):
    alice_client.cookies["django_language"] = "zh-hans"
    answer = alice_client.post("/settings/memories/paste", {"text": "以下是我记得的：\n\n"})
    assert answer.status_code == 422 and "粘贴的文字里没有记忆" in answer.content.decode()
    assert not Memory.objects.filter(user=alice).exists()
