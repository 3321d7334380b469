"""The chat page in Chromium against a real Daphne: streaming, citations, temporary chat, "memory updated"."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from conversations.models import Conversation
from memoryapp.engine.memories.write import add_memory
from memoryapp.models import Memory, MemoryStatus
from tests.conftest import PASSWORD
from tests.support.llm_server import CHAT_TURN
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


def _wait_until(what, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "the server did not get there in time"
        time.sleep(0.25)


def _systems(app_server) -> list[str]:
    return [r["messages"][0]["content"] for r in app_server.llm.chat_requests(CHAT_TURN)]


def test_it_streams_a_reply_and_cites_a_memory(page: Page, app_server, alice, shots):
    _log_in(page, app_server)
    app_server.llm.script(CHAT_TURN, "Hello **there**, how can I help?")
    _send(page, "Hi!")
    expect(page.locator(".message-assistant").last).to_contain_text("Hello there, how can I help?", timeout=30_000)
    expect(page.locator(".message-assistant strong").last).to_have_text("there")
    expect(page.locator(".message-user .plain").last).to_have_text("Hi!")

    memory = _add_memory(alice, "I prefer functional style in Python", kind="preference")
    page.locator("form[action='/c/new/'] button.new-chat").click()
    app_server.llm.script(CHAT_TURN, "Based on your preference for functional style [1], use map and filter.")
    _send(page, "How should I write this Python loop? I prefer functional style")
    chip = page.locator(f".citations .chip[data-memory-id='{memory.pk}']")
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
    app_server.llm.script(CHAT_TURN, "Noted for now.")
    asked = len(app_server.llm.chat_requests(CHAT_TURN))
    _send(page, "Am I allergic to peanuts?")
    expect(page.locator(".message-assistant").last).to_contain_text("Noted for now.", timeout=30_000)
    assert "<memories>" not in _systems(app_server)[asked]
    expect(page.locator("#conversation-list")).not_to_contain_text("allergic")
    expect(page.locator(".chip")).to_have_count(0)
    page.screenshot(path=str(shots / "chat-temporary.png"), full_page=True)
    page.goto(f"{app_server.url}/")  # its tab leaves it: it is discarded (CHAT_TAB_GRACE_SECONDS later)
    _wait_until(lambda: not Conversation.objects.filter(pk=conversation.pk).exists())


def test_it_shows_memory_updated_and_undoes_it(page: Page, app_server, alice, shots):
    _log_in(page, app_server)
    app_server.llm.script(CHAT_TURN, "Lisbon is lovely.")
    _send(page, "I live in Lisbon")
    expect(page.locator(".message-assistant").last).to_contain_text("Lisbon is lovely.", timeout=30_000)
    conversation_id = int(page.locator("#chat").get_attribute("data-conversation-id"))

    memory = _add_memory(
        alice, "I live in Lisbon", kind="fact", source="extracted", source_conversation_id=conversation_id
    )
    notice = page.locator(f".memory-notice[data-memory-id='{memory.pk}']")
    expect(notice).to_contain_text("Memory updated: «I live in Lisbon»", timeout=15_000)
    expect(notice.locator(f"a[href='/settings/memories?focus={memory.pk}']")).to_be_visible()
    page.screenshot(path=str(shots / "chat-memory-updated.png"), full_page=True)
    notice.locator("button.undo").click()
    expect(notice).to_contain_text("Undone", timeout=10_000)
    assert Memory.objects.get(pk=memory.pk).status == MemoryStatus.DELETED


def _learn_in_chat(page: Page, app_server, alice, content: str) -> Memory:
    """A first turn, then a memory learnt from this chat (as extraction would write it)."""
    app_server.llm.script(CHAT_TURN, "Noted.")
    _send(page, content)
    expect(page.locator(".message-assistant").last).to_contain_text("Noted.", timeout=30_000)
    conversation_id = int(page.locator("#chat").get_attribute("data-conversation-id"))
    return _add_memory(alice, content, kind="fact", source="extracted", source_conversation_id=conversation_id)


def test_it_keeps_a_notice_with_undo_until_it_is_closed(page: Page, app_server, alice):
    page.clock.install()
    _log_in(page, app_server)
    _learn_in_chat(page, app_server, alice, "I live in Lisbon")
    notice = page.locator(".memory-notice")
    expect(notice).to_contain_text("«I live in Lisbon»", timeout=15_000)
    page.mouse.move(0, 0)  # neither hovered nor focused: nothing holds it
    page.clock.fast_forward("05:00")  # five minutes on, the reader can still undo
    page.wait_for_timeout(1500)
    expect(notice).to_be_visible()
    expect(notice).not_to_have_class(re.compile("fading"))
    expect(notice.locator("button.undo")).to_be_enabled()
    notice.locator("button.close").click()
    expect(notice).to_have_count(0)


def test_it_keeps_a_plain_notice_long_enough_to_read(page: Page, app_server, alice):
    page.clock.install()
    _log_in(page, app_server)
    memory = _learn_in_chat(page, app_server, alice, "I live in Lisbon")
    notice = page.locator(".memory-notice")
    notice.locator("button.undo").click(timeout=15_000)
    expect(notice).to_contain_text("Undone: that memory was removed.")
    assert Memory.objects.get(pk=memory.pk).status == MemoryStatus.DELETED
    page.mouse.move(0, 0)
    page.clock.fast_forward(15_000)  # 15 s on, still there to read
    page.wait_for_timeout(1500)
    expect(notice).to_be_visible()
    expect(notice).not_to_have_class(re.compile("fading"))
    page.clock.fast_forward(10_000)  # then it goes
    expect(notice).to_have_count(0, timeout=5_000)


def test_it_shows_an_error_and_retries_when_the_model_is_down(page: Page, app_server, alice):
    from tests.support.llm_server import Fail

    _log_in(page, app_server)
    app_server.llm.script(CHAT_TURN, Fail(503), Fail(503))
    _send(page, "Are you there?")
    error = page.locator(".message-error")
    expect(error).to_contain_text("The model is down or too slow", timeout=30_000)
    expect(page.locator(".message-user .plain").last).to_have_text("Are you there?")
    app_server.llm.script(CHAT_TURN, "Back again.")
    error.locator("button.retry").click()
    expect(page.locator(".message-assistant").last).to_contain_text("Back again.", timeout=30_000)
    expect(page.locator(".message-error")).to_have_count(0)


def test_it_works_in_chinese(page: Page, app_server, alice, shots):
    memory = _add_memory(alice, "我喜欢喝绿茶", kind="preference")
    _log_in(page, app_server, language="zh-hans")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.locator("#composer button.send")).to_have_text("发送")
    app_server.llm.script(CHAT_TURN, "根据你喜欢绿茶的偏好[1]，推荐龙井。")
    _send(page, "推荐一种茶吧，我喜欢喝绿茶")
    expect(page.locator(".message-assistant").last).to_contain_text("推荐龙井", timeout=30_000)
    expect(page.locator(f".citations .chip[data-memory-id='{memory.pk}']")).to_be_visible()
    expect(page.locator(".citations-label").last).to_have_text("依据记忆：")
    page.screenshot(path=str(shots / "chat-zh.png"), full_page=True)


@pytest.mark.parametrize("start", ["/settings/memories", "/settings/"])
def test_it_opens_a_temporary_chat_with_the_shortcut_from_any_page(page: Page, app_server, alice, start):
    _log_in(page, app_server)
    page.goto(f"{app_server.url}{start}")
    page.wait_for_load_state()
    page.keyboard.press("Control+Shift+T")
    expect(page.locator(".temporary-banner")).to_be_visible()
    assert Conversation.objects.filter(user=alice, temporary=True).exists()


def test_it_lists_a_new_chat_in_the_sidebar_from_its_first_message(page: Page, app_server, alice):
    _log_in(page, app_server)
    expect(page.locator("#conversation-list")).to_contain_text("No chats yet.")
    app_server.llm.script(CHAT_TURN, "Kyoto in spring is beautiful.")
    _send(page, "Plan a trip to Kyoto")
    current = page.locator("#conversation-list li.current")
    expect(current).to_have_text("Plan a trip to Kyoto", timeout=15_000)
    expect(page.locator("#conversation-list")).not_to_contain_text("No chats yet.")
    expect(page.locator(".message-assistant").last).to_contain_text("Kyoto in spring", timeout=30_000)


LEARNT = {
    "en": ("3 memories updated, the latest: «Has a dog called Rex»", "Memory updated: «Likes hiking»"),
    "zh-hans": ("3 条记忆已更新，最新一条： «Has a dog called Rex»", "记忆已更新： «Likes hiking»"),
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_collapses_memory_notices_into_one_line(page: Page, app_server, alice, language, shots):
    _log_in(page, app_server, language)
    app_server.llm.script(CHAT_TURN, "Nice to meet you.")
    _send(page, "I live in Lisbon, work as a nurse and have a dog called Rex")
    expect(page.locator(".message-assistant").last).to_contain_text("Nice to meet you.", timeout=30_000)
    conversation_id = int(page.locator("#chat").get_attribute("data-conversation-id"))
    first = _add_memory(
        alice, "Lives in Lisbon", kind="fact", source="extracted", source_conversation_id=conversation_id
    )
    notice = page.locator(".memory-notice")
    expect(notice).to_contain_text("«Lives in Lisbon»", timeout=15_000)
    one_line = notice.bounding_box()["height"]
    _add_memory(alice, "Works as a nurse", kind="fact", source="extracted", source_conversation_id=conversation_id)
    latest = _add_memory(
        alice, "Has a dog called Rex", kind="fact", source="extracted", source_conversation_id=conversation_id
    )
    many, single = LEARNT[language]
    expect(notice).to_contain_text(many, timeout=15_000)
    expect(notice).to_have_count(1)
    expect(notice.locator(f"a[href='/settings/memories?focus={latest.pk}']")).to_be_visible()
    expect(notice.locator("a.all-memories")).to_have_attribute("href", "/settings/memories")  # each one there
    assert page.locator("#notices").bounding_box()["height"] <= one_line + 1  # one line, however many were learnt
    page.screenshot(path=str(shots / f"chat-memories-updated-{language}.png"))
    page.set_viewport_size({"width": 320, "height": 640})  # a phone: the line cuts the memory short, not the page
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert notice.bounding_box()["x"] + notice.bounding_box()["width"] <= 320
    notice.locator("button.close").click()  # it offers undo, so it stays until closed
    expect(notice).to_have_count(0)
    assert Memory.objects.get(pk=first.pk).status == MemoryStatus.ACTIVE
    _add_memory(alice, "Likes hiking", kind="preference", source="extracted", source_conversation_id=conversation_id)
    expect(notice).to_have_text(re.compile("^" + re.escape(single)), timeout=15_000)  # a new line, counting afresh


def test_it_logs_no_error_in_the_console_from_turn_to_turn(page: Page, app_server, alice):
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("response", lambda response: response.status >= 400 and errors.append(f"{response.status} {response.url}"))
    _log_in(page, app_server)
    for n, reply in enumerate(["One reply.", "Another reply.", "A third reply."], start=1):
        app_server.llm.script(CHAT_TURN, reply)
        _send(page, f"Message number {n}")
        expect(page.locator(".message-assistant")).to_have_count(n, timeout=30_000)
        expect(page.locator(".message-assistant").last).to_contain_text(reply, timeout=30_000)
    expect(page.locator("#empty-chat")).to_have_count(0)
    assert errors == []


def test_it_gives_a_chat_its_own_address_for_reload_back_and_forward(page: Page, app_server, alice):
    _log_in(page, app_server)
    expect(page).to_have_url(f"{app_server.url}/")  # a fresh chat
    app_server.llm.script(CHAT_TURN, "Kyoto in spring is beautiful.")
    _send(page, "Plan a trip to Kyoto")
    expect(page.locator(".message-assistant").last).to_contain_text("Kyoto in spring", timeout=30_000)
    own = f"{app_server.url}/c/{page.locator('#chat').get_attribute('data-conversation-id')}/"
    expect(page).to_have_url(own)  # with its first message it has its own address
    said = page.locator(".message-user .plain")

    page.reload()
    expect(said).to_have_text(["Plan a trip to Kyoto"])
    expect(page.locator(".message-assistant")).to_contain_text("Kyoto in spring")
    page.locator("form[action='/c/new/'] button.new-chat").click()
    expect(page.locator("#empty-chat")).to_be_visible()
    page.go_back()
    expect(page).to_have_url(own)
    expect(said).to_have_text(["Plan a trip to Kyoto"])
    page.go_forward()
    expect(page.locator("#empty-chat")).to_be_visible()
    page.goto(own)  # as a bookmark would
    page.select_option("select[name=language]", "zh-hans")  # the language picker comes back to the chat
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page).to_have_url(own)
    expect(said).to_have_text(["Plan a trip to Kyoto"])


def test_it_keeps_a_chat_going_while_another_tab_opens_one(page: Page, app_server, alice):
    _log_in(page, app_server)
    page.keyboard.press("Control+Shift+T")  # a temporary chat in this tab
    expect(page.locator(".temporary-banner")).to_be_visible()
    temporary = Conversation.objects.get(user=alice, temporary=True)
    app_server.llm.script(CHAT_TURN, "Noted for now.")
    _send(page, "Keep this between us")
    expect(page.locator(".message-assistant").last).to_contain_text("Noted for now.", timeout=30_000)

    other = page.context.new_page()  # a second tab opens the chat page: a fresh chat there
    other.goto(f"{app_server.url}/")
    expect(other.locator("#empty-chat")).to_be_visible()
    other.wait_for_timeout(4_000)  # past CHAT_TAB_GRACE_SECONDS (tests/support/servers.py)
    app_server.llm.script(CHAT_TURN, "Still here.")
    _send(page, "Are you still there?")  # the first tab's chat goes on
    expect(page.locator(".message-assistant").last).to_contain_text("Still here.", timeout=30_000)
    expect(page.locator(".turn-status")).to_have_count(0)
    other.close()
    page.close()  # its own tab leaves it: now it goes
    _wait_until(lambda: not Conversation.objects.filter(pk=temporary.pk).exists())
