"""Time travel in Chromium: the memories page as of a past day, and a chat question about the past whose
reply cites the old version as old. English and Chinese."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from memoryapp.engine.memories.write import add_memory, supersede_memory
from tests.support.browser import log_in
from tests.support.llm_server import CHAT_TURN
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = {
    "en": {
        "old": "Prefers Vue 3 for frontend work",
        "new": "Prefers React for frontend work now",
        "apply": "Apply",
        "replaced": "Replaced on",
        "ask": "Which frontend framework did I like five months ago?",
        "past": "past",
    },
    "zh-hans": {
        "old": "我喜欢用 Vue 3 写前端",
        "new": "我现在更喜欢用 React 写前端",
        "apply": "应用",
        "replaced": "被替换为",
        "ask": "5个月前我喜欢用什么前端框架？",
        "past": "过去",
    },
}


def _seed(alice, language: str):
    now = timezone.now()
    old = add_memory(alice, TEXT[language]["old"], kind="preference", valid_from=now - timedelta(days=300)).memory
    new = supersede_memory(old, TEXT[language]["new"], valid_from=now - timedelta(days=60)).memory
    return old, new


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_memories_page_as_of_a_past_day(page: Page, app_server, alice, language):
    text = TEXT[language]
    old, new = off_loop(_seed, alice, language)
    log_in(page, app_server.url, language, "/settings/memories")
    cards = page.locator(".memory-card")
    expect(cards).to_have_count(1)
    expect(cards.first).to_contain_text(text["new"])

    page.fill("input[name=at]", (timezone.localdate() - timedelta(days=100)).isoformat())
    page.get_by_role("button", name=text["apply"]).click()
    expect(page.locator("#as-of")).to_be_visible()
    expect(cards).to_have_count(1)
    then = cards.first
    expect(then.locator(".mem-content")).to_have_text(text["old"])
    expect(then.locator(".replaced-by")).to_contain_text(text["replaced"])
    link = then.locator(".replaced-by a")
    expect(link).to_have_text(text["new"])
    link.click()  # what replaced it, in today's list
    expect(page.locator(f"#memory-{new.pk}.focus")).to_be_visible()
    expect(page.locator("#as-of")).to_have_count(0)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_question_about_the_past_cites_the_old_version_as_old(page: Page, app_server, alice, language):
    text = TEXT[language]
    old, _ = off_loop(_seed, alice, language)
    app_server.llm.script(CHAT_TURN, "Back then: Vue 3 [1].")
    log_in(page, app_server.url, language, "/")
    page.fill("#composer textarea", text["ask"])
    page.keyboard.press("Enter")
    expect(page.locator(".message-assistant").last).to_contain_text("Back then: Vue 3", timeout=30_000)
    chip = page.locator(f".citations .chip[data-memory-id='{old.pk}']")
    expect(chip).to_be_visible()
    expect(chip.locator(".chip-past")).to_have_text(re.compile(text["past"], re.IGNORECASE))
    system = app_server.llm.chat_requests(CHAT_TURN)[-1]["messages"][0]["content"]
    assert text["old"] in system and text["new"] in system  # the old version, and what replaced it
