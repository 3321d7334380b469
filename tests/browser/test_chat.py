"""The chat page in Chromium against a real Daphne: streaming, citations, temporary chat, "memory updated"."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from conversations.models import Conversation
from memoryapp.engine.write import add_memory
from memoryapp.models import Memory, MemoryStatus
from tests.conftest import PASSWORD
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _add_memory(*args, **kwargs) -> Memory:
    return off_loop(add_memory, *args, **kwargs).memory


def _log_in(page: Page, app_server, language: str = "en") -> None:
    page.goto(f"{app_server.url}/accounts/login/")
    if language != "en":
        page.select_option("select[name=language]", language)
        page.wait_for_load_state()
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", PASSWORD)
    page.locator("form button[type=submit], form input[type=submit]").last.click()
    page.wait_for_url(re.compile(r"/(c/\d+/)?$"))


def _send(page: Page, text: str) -> None:
    page.fill("#composer textarea", text)
    page.keyboard.press("Enter")


def _systems(app_server) -> list[str]:
    return [r["messages"][0]["content"] for r in app_server.llm.chat_requests()]


def test_it_streams_a_reply_and_cites_a_memory(page: Page, app_server, alice, shots):
    _log_in(page, app_server)
    app_server.llm.script(None, "Hello **there**, how can I help?")
    _send(page, "Hi!")
    expect(page.locator(".message-assistant").last).to_contain_text("Hello there, how can I help?", timeout=30_000)
    expect(page.locator(".message-assistant strong").last).to_have_text("there")
    expect(page.locator(".message-user .plain").last).to_have_text("Hi!")

    memory = _add_memory(alice, "I prefer functional style in Python", kind="preference")
    page.locator("form[action='/c/new/'] button.new-chat").click()
    app_server.llm.script(None, "Based on your preference for functional style, use map and filter.")
    _send(page, "How should I write this Python loop? I prefer functional style")
    chip = page.locator(f".chip[data-memory-id='{memory.pk}']")
    expect(chip).to_be_visible(timeout=30_000)
    assert "<memories>" in _systems(app_server)[-1] and memory.content in _systems(app_server)[-1]
    chip.locator("summary").click()
    expect(chip.locator(".chip-content")).to_have_text(memory.content)
    expect(chip.locator(f"a[href='/settings/memories?focus={memory.pk}']")).to_be_visible()
    page.screenshot(path=str(shots / "chat.png"), full_page=True)


def test_it_keeps_a_temporary_chat_out_of_the_list_and_recalls_nothing(page: Page, app_server, alice, shots):
    _add_memory(alice, "I am allergic to peanuts", kind="fact")
    _log_in(page, app_server)
    page.keyboard.press("Control+Shift+T")
    expect(page.locator(".temporary-banner")).to_be_visible()
    conversation = Conversation.objects.get(user=alice, temporary=True)
    app_server.llm.script(None, "Noted for now.")
    asked = len(app_server.llm.chat_requests())
    _send(page, "Am I allergic to peanuts?")
    expect(page.locator(".message-assistant").last).to_contain_text("Noted for now.", timeout=30_000)
    assert "<memories>" not in _systems(app_server)[asked]
    expect(page.locator("#conversation-list")).not_to_contain_text("allergic")
    expect(page.locator(".chip")).to_have_count(0)
    page.screenshot(path=str(shots / "chat-temporary.png"), full_page=True)
    page.goto(f"{app_server.url}/")
    assert not Conversation.objects.filter(pk=conversation.pk).exists()


def test_it_shows_memory_updated_and_undoes_it(page: Page, app_server, alice, shots):
    _log_in(page, app_server)
    app_server.llm.script(None, "Lisbon is lovely.")
    _send(page, "I live in Lisbon")
    expect(page.locator(".message-assistant").last).to_contain_text("Lisbon is lovely.", timeout=30_000)
    conversation_id = int(page.locator("#chat").get_attribute("data-conversation-id"))

    memory = _add_memory(alice, "I live in Lisbon", kind="fact", source="extracted",
                         source_conversation_id=conversation_id)
    notice = page.locator(f".memory-notice[data-memory-id='{memory.pk}']")
    expect(notice).to_contain_text("Memory updated: «I live in Lisbon»", timeout=15_000)
    expect(notice.locator(f"a[href='/settings/memories?focus={memory.pk}']")).to_be_visible()
    page.screenshot(path=str(shots / "chat-memory-updated.png"), full_page=True)
    notice.locator("button.undo").click()
    expect(notice).to_contain_text("Undone", timeout=10_000)
    assert Memory.objects.get(pk=memory.pk).status == MemoryStatus.DELETED


def test_it_shows_an_error_and_retries_when_the_model_is_down(page: Page, app_server, alice):
    from tests.support.llm_server import Fail

    _log_in(page, app_server)
    app_server.llm.script(None, Fail(503), Fail(503))
    _send(page, "Are you there?")
    error = page.locator(".message-error")
    expect(error).to_contain_text("The model is down or too slow", timeout=30_000)
    expect(page.locator(".message-user .plain").last).to_have_text("Are you there?")
    app_server.llm.script(None, "Back again.")
    error.locator("button.retry").click()
    expect(page.locator(".message-assistant").last).to_contain_text("Back again.", timeout=30_000)
    expect(page.locator(".message-error")).to_have_count(0)


def test_it_works_in_chinese(page: Page, app_server, alice, shots):
    memory = _add_memory(alice, "我喜欢喝绿茶", kind="preference")
    _log_in(page, app_server, language="zh-hans")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.locator("#composer button.send")).to_have_text("发送")
    app_server.llm.script(None, "根据你喜欢绿茶的偏好，推荐龙井。")
    _send(page, "推荐一种茶吧，我喜欢喝绿茶")
    expect(page.locator(".message-assistant").last).to_contain_text("推荐龙井", timeout=30_000)
    expect(page.locator(f".chip[data-memory-id='{memory.pk}']")).to_be_visible()
    expect(page.locator(".citations-label").last).to_have_text("依据记忆：")
    page.screenshot(path=str(shots / "chat-zh.png"), full_page=True)
