"""The question about two memories that may disagree, on the memories page in Chromium, in English and
Chinese: "Replace" ends the older memory (kept in its history), "Keep both" leaves both current."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from memoryapp.engine.memories import conflicts
from memoryapp.engine.memories.write import add_memory
from memoryapp.models import Memory
from tests.support.browser import log_in
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = {
    "en": {
        "old": "I live in Leeds",
        "new": "We moved to Valencia in the summer",
        "replace": "Replace",
        "keep": "Keep both",
        "asks": "Does “I live in Leeds” still hold?",
    },
    "zh-hans": {
        "old": "我住在西安",
        "new": "我们上个月搬到武汉了",
        "replace": "替换",
        "keep": "都保留",
        "asks": "“我住在西安”还成立吗？",
    },
}


def _seed(alice, language: str) -> tuple[int, int]:
    older = add_memory(alice, TEXT[language]["old"], kind="fact", valid_from=timezone.now() - timedelta(days=90)).memory
    newer = add_memory(alice, TEXT[language]["new"], kind="fact").memory
    conflicts.ask(alice.pk, older, newer)
    return older.pk, newer.pk


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_page_asks_and_replace_ends_the_older_memory(page: Page, app_server, alice, language, shots):
    text = TEXT[language]
    older, _newer = off_loop(_seed, alice, language)
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, app_server.url, language, "/settings/memories")

    question = page.locator("#questions .question")
    expect(question).to_have_count(1)
    expect(question).to_contain_text(text["asks"])
    page.locator("#questions").screenshot(path=str(shots / f"memories-question-{language}.png"))
    question.get_by_role("button", name=text["replace"]).click()

    expect(page.locator("#questions")).to_have_count(0)
    expect(page.locator(".memory-card .mem-content")).to_have_text([text["new"]])
    assert off_loop(lambda: Memory.objects.get(pk=older).valid_until is not None)


def test_keep_both_leaves_both_memories_current(page: Page, app_server, alice):
    text = TEXT["en"]
    off_loop(_seed, alice, "en")
    log_in(page, app_server.url, "en", "/settings/memories")

    page.locator("#questions .question").get_by_role("button", name=text["keep"]).click()

    expect(page.locator("#questions")).to_have_count(0)
    expect(page.locator(".memory-card .mem-content")).to_have_count(2)
