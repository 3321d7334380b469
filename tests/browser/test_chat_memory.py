"""Memory in the chat itself, in Chromium against a real Daphne: "what do you remember about me?", "forget
that ..." with Undo in place, and "Remember this" on a message; English and Chinese."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from memoryapp.engine.memories.write import add_memory
from memoryapp.models import Memory, MemoryStatus
from tests.support.browser import log_in
from tests.support.llm_server import CHAT_TURN
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STORED = {
    "en": [
        ("I prefer functional style in Python", "preference"),
        ("I like oolong tea", "preference"),
        ("I live in Berlin", "fact"),
        ("I work at Acme as a designer", "fact"),
        ("I want to run a marathon this year", "goal"),
    ],
    "zh-hans": [
        ("我喜欢喝乌龙茶", "preference"),
        ("写代码我偏好函数式风格", "preference"),
        ("我住在柏林", "fact"),
        ("我养了一只猫，叫咪咪", "fact"),
        ("今年想跑一次全程马拉松", "goal"),
    ],
}
ASKED = {
    "en": (
        "What do you remember about me?",
        "Here are the 5 memories I keep about you:",
        "Preferences (2)",
        "the memories page",
    ),
    "zh-hans": ("你记得我什么？", "我记得关于你的这 5 条记忆：", "偏好 (2)", "记忆页面"),
}


def _send(page: Page, text: str) -> None:
    page.fill("#composer textarea", text)
    page.keyboard.press("Enter")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_answers_what_do_you_remember_about_me_in_the_chat(page: Page, app_server, alice, language, shots):
    for content, kind in STORED[language]:
        off_loop(add_memory, alice, content, kind=kind)
    asked_model = len(app_server.llm.chat_requests(CHAT_TURN))
    log_in(page, app_server.url, language, "/")
    question, lead, heading, page_link = ASKED[language]
    _send(page, question)
    reply = page.locator(".message-assistant").last
    expect(reply).to_contain_text(lead, timeout=30_000)
    expect(reply).to_contain_text(heading)
    for content, _kind in STORED[language]:
        expect(reply).to_contain_text(content)
    expect(reply.locator("a[href='/settings/memories']")).to_have_text(page_link)
    expect(page.locator(".chip")).to_have_count(0)  # an answer from memory itself, not a reply citing memories
    assert len(app_server.llm.chat_requests(CHAT_TURN)) == asked_model  # the app answers it, not the model
    page.screenshot(path=str(shots / f"chat-what-you-remember-{language}.png"), full_page=True)


@pytest.mark.parametrize(
    ("language", "said", "done"),
    [
        ("en", "Forget that I live in Berlin.", "Forgotten: «I live in Berlin»"),
        ("zh-hans", "忘掉我住在柏林这件事。", "已忘掉：«我住在柏林»"),
    ],
)
def test_it_forgets_in_the_chat_and_undoes_it_in_place(page: Page, app_server, alice, language, said, done):
    memories = {content: off_loop(add_memory, alice, content, kind=kind).memory for content, kind in STORED[language]}
    meant = memories["I live in Berlin" if language == "en" else "我住在柏林"]
    log_in(page, app_server.url, language, "/")
    _send(page, said)
    reply = page.locator(".message-assistant").last
    expect(reply).to_contain_text(done, timeout=30_000)
    action = reply.locator(f".memory-action[data-memory-id='{meant.pk}']")
    expect(action).to_have_attribute("data-status", "deleted")
    assert Memory.objects.get(pk=meant.pk).status == MemoryStatus.DELETED
    action.locator("button.undo").click()
    expect(action).to_have_attribute("data-status", "active", timeout=10_000)
    expect(action.locator("button.forget")).to_be_visible()
    assert Memory.objects.get(pk=meant.pk).status == MemoryStatus.ACTIVE


def test_it_asks_which_memory_to_forget_with_a_button_each(page: Page, app_server, alice, shots):
    tom = off_loop(add_memory, alice, "I have a cat called Tom", kind="fact").memory
    mimi = off_loop(add_memory, alice, "I have a cat called Mimi", kind="fact").memory
    log_in(page, app_server.url, "en", "/")
    _send(page, "please forget my cat")
    reply = page.locator(".message-assistant").last
    expect(reply).to_contain_text("Which one should I forget?", timeout=30_000)
    reply.locator(f".memory-action[data-memory-id='{mimi.pk}'] button.forget").click()
    expect(reply.locator(f".memory-action[data-memory-id='{mimi.pk}']")).to_have_attribute("data-status", "deleted")
    page.screenshot(path=str(shots / "chat-forget-which.png"), full_page=True)
    assert Memory.objects.get(pk=mimi.pk).status == MemoryStatus.DELETED
    assert Memory.objects.get(pk=tom.pk).status == MemoryStatus.ACTIVE


@pytest.mark.parametrize(
    ("language", "said", "saved"),
    [
        ("en", "The cabin's wifi only works near the kitchen window", "Remembered:"),
        ("zh-hans", "周末去爬山的装备放在车库左边的柜子里", "已记住："),
    ],
)
def test_it_remembers_a_message_when_asked(page: Page, app_server, alice, language, said, saved):
    log_in(page, app_server.url, language, "/")
    app_server.llm.script(CHAT_TURN, "OK.")
    _send(page, said)
    expect(page.locator(".message-assistant").last).to_contain_text("OK.", timeout=30_000)
    message = page.locator(".message-user").last
    message.locator("button.remember").click()
    result = message.locator(".remember-result")
    expect(result).to_contain_text(saved, timeout=30_000)
    expect(result).to_contain_text(said[:12])
    memory = Memory.objects.get(user=alice, content=said)
    expect(result.locator(f"a[href='/settings/memories?focus={memory.pk}']")).to_be_visible()
    result.locator("button.undo").click()
    expect(result.locator(".memory-action")).to_have_attribute("data-status", "deleted", timeout=10_000)
    assert Memory.objects.get(pk=memory.pk).status == MemoryStatus.DELETED
