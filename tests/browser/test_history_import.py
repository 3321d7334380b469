"""Import from ChatGPT or Claude in Chromium, in English and Chinese: a ChatGPT export uploaded, its preview
(the archived chat unticked), the learning by the real worker (its model scripted), then Undo this import."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.engine.llm.decisions import DECIDE_MARKER
from memoryapp.models import Memory, MemoryStatus
from memoryapp.pipeline.models import HistoryImport
from tests.browser.test_memories_page import open_memories
from tests.support.llm_server import _last_user, system_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXPORT = Path(__file__).parents[1] / "unit" / "engine" / "history_exports" / "chatgpt_conversations.json"
# What the scripted model finds in a window of the export's turns.
LEARNT = {"I live in Chengdu": ("Lives in Chengdu", "fact"), "我对花生过敏": ("对花生过敏", "fact")}
TEXT = {
    "en": {
        "summary": "chatgpt_conversations.json (ChatGPT): 3 conversations",
        "done": "Learnt from 2 conversations: 2 new memories",
        "undone": "The import was undone: 2 memories were removed.",
        "asks": "Remove every memory this import made",
    },
    "zh-hans": {
        "summary": "chatgpt_conversations.json（ChatGPT）：3 段对话",
        "done": "已从 2 段对话中学习：新增 2 条记忆",
        "undone": "已撤销这次导入：移除了 2 条记忆。",
        "asks": "移除这次导入产生的所有记忆",
    },
}


def _model(body: dict):
    system, said = system_text(body), _last_user(body)
    if EXTRACT_MARKER in system:
        found = [
            {"content": c, "kind": k, "importance": 0.7, "confidence": 0.9} for s, (c, k) in LEARNT.items() if s in said
        ]
        return json.dumps({"candidates": found}, ensure_ascii=False)
    if DECIDE_MARKER in system:
        count = len(re.findall(r'"candidate_index"', said)) or 1
        return json.dumps(
            {
                "decisions": [
                    {"candidate_index": i, "action": "ADD", "target_id": None, "reason": "new"} for i in range(count)
                ]
            }
        )
    return said  # another background task's request: as if unscripted


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_export_is_previewed_learnt_and_undone(page: Page, app_server, celery_worker, alice, language, shots):
    text = TEXT[language]
    app_server.llm.default = _model
    try:
        open_memories(page, app_server)
        page.context.add_cookies([{"name": "django_language", "value": language, "url": app_server.url}])
        page.goto(f"{app_server.url}/settings/memories")
        page.locator("#history-box summary").click()
        page.set_input_files("#history-file", str(EXPORT))
        page.locator("#history-upload").click()

        expect(page.locator("#history-summary")).to_contain_text(text["summary"])
        archived = page.locator("#history-rows tbody tr", has_text="Old tax question").locator("input")
        expect(archived).not_to_be_checked()
        expect(page.locator("#history-rows tbody input:checked")).to_have_count(2)
        page.screenshot(path=str(shots / f"history-preview-{language}.png"), full_page=True)
        page.locator("#history-start").click()

        expect(page.locator("#history-import")).to_be_visible()
        expect(page.locator("#history-line")).to_contain_text(text["done"], timeout=60_000)
        page.screenshot(path=str(shots / f"history-done-{language}.png"))
        learnt = set(Memory.objects.filter(user=alice, status=MemoryStatus.ACTIVE).values_list("content", flat=True))
        assert learnt == {"Lives in Chengdu", "对花生过敏"}
        page.reload()
        expect(page.locator(".memory-card", has_text="Lives in Chengdu")).to_be_visible()

        asked = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        page.locator("#history-undo").click()
        expect(page.locator(".messages, [role=status], [role=alert]").filter(has_text=text["undone"])).to_have_count(1)
        expect(page.locator(".memory-card", has_text="Lives in Chengdu")).to_have_count(0)
        assert not Memory.objects.filter(user=alice, status=MemoryStatus.ACTIVE).exists()
        assert asked and text["asks"] in asked[0]  # it asked first
    finally:
        app_server.llm.default = None


@pytest.mark.parametrize(
    "language, words", [("en", "neither a ChatGPT nor a Claude export"), ("zh-hans", "既不是 ChatGPT 的导出")]
)
def test_a_file_that_is_not_an_export_is_one_sentence_under_the_form(page: Page, app_server, alice, language, words):
    open_memories(page, app_server)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": app_server.url}])
    page.goto(f"{app_server.url}/settings/memories")
    page.wait_for_function("window.htmx !== undefined")
    page.locator("#history-box summary").click()
    page.set_input_files(
        "#history-file", files=[{"name": "notes.json", "mimeType": "application/json", "buffer": b'{"notes": []}'}]
    )
    page.locator("#history-upload").click()
    expect(page.locator("#history-upload-status[role=alert]")).to_contain_text(words)
    expect(page.locator("#history-upload")).to_be_enabled()  # the user can choose another file
    assert not HistoryImport.objects.filter(user=alice).exists()
