"""The chat on a fresh machine (no model configured), as a new user meets it in either language: a
temporary chat's reply says memory is off, and a secret said in a regular chat is answered with why it is
not kept."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from memoryapp.engine.memories.write import add_memory
from tests.conftest import PASSWORD
from tests.support.servers import offline_server  # noqa: F401  (a fixture)
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SAID = {
    "en": {
        "dinner": "What should I cook for dinner tonight?",
        "off": "Memory is off in this chat",
        "secret": "remember that my passport number is E12345678",
        "not_kept": "I won't keep a passport number",
    },
    "zh-hans": {
        "dinner": "今晚做什么菜好？",
        "off": "这个对话没有开启记忆",
        "secret": "记住我的护照号码是E12345678",
        "not_kept": "护照号码不会被记住",
    },
}


def _log_in(page: Page, server, language: str) -> None:
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])
    page.goto(f"{server.url}/accounts/login/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", PASSWORD)
    page.locator("form button[type=submit]").click()
    page.wait_for_url(f"{server.url}/**")


def _send(page: Page, text: str) -> None:
    page.fill("#composer textarea", text)
    page.keyboard.press("Enter")


@pytest.mark.parametrize("language", list(SAID))
def test_a_temporary_chat_says_memory_is_off_not_that_nothing_matched(
    page: Page, offline_server, alice, shots, language
):
    off_loop(add_memory, alice, "I'm vegetarian", kind="preference")
    _log_in(page, offline_server, language)
    page.keyboard.press("Control+Shift+T")
    expect(page.locator(".temporary-banner")).to_be_visible()

    _send(page, SAID[language]["dinner"])

    reply = page.locator(".message-assistant").last
    expect(reply).to_contain_text(SAID[language]["off"], timeout=30_000)
    expect(reply).not_to_contain_text("No stored memories match")
    page.screenshot(path=str(shots / f"chat-temporary-offline-{language}.png"), full_page=True)


@pytest.mark.parametrize("language", list(SAID))
def test_a_secret_said_in_the_chat_gets_one_line_saying_it_is_not_kept(
    page: Page, offline_server, alice, shots, language
):
    _log_in(page, offline_server, language)

    _send(page, SAID[language]["secret"])

    note = page.locator(".message-user .withheld-note")
    expect(note).to_contain_text(SAID[language]["not_kept"], timeout=30_000)
    expect(page.locator(".message-assistant")).to_have_count(1, timeout=30_000)
    expect(note).to_have_count(1)  # said once, under the message
    page.screenshot(path=str(shots / f"chat-secret-{language}.png"), full_page=True)
