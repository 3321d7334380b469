"""The chat, Settings > Memories and Settings on a phone (320 and 390 px), in English and Chinese.

Nothing may stick out past the right edge: the page does not scroll sideways, no element ends beyond the
viewport, no box scrolls sideways inside it (code blocks excepted), and the controls a person needs there
are on screen. The browser draws with the repo's fonts only (tests/browser/fonts.conf), and the server runs
with no language model, so the "offline model" badge and banner are on the page too.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from conversations.models import Citation, Conversation, Message, Role
from memoryapp.api.auth import create_token, revoke_token
from memoryapp.engine.memories.write import add_memory
from memoryapp.pipeline.models import MemorySuggestion
from tests.support.browser import log_in
from tests.support.servers import offline_server  # noqa: F401  (a fixture)
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTHS = [320, 390]
# Screenshots to look at by hand: MEMORYAPP_NARROW_SHOTS=/tmp/shots ./test tests/browser/test_narrow_screens.py
SHOTS = os.environ.get("MEMORYAPP_NARROW_SHOTS")

CONTENT = {
    "en": {
        "title": "Training plan for the Leipzig half marathon in October",
        "others": [
            "Weekend trip to Dresden: trains, museums and where to eat",
            "Why does my sourdough starter smell like acetone?",
            "Refactoring the lesson scheduler to use zoneinfo",
        ],
        "question": "I want to run the Leipzig half marathon this autumn. Can you draft a 12-week plan? "
        "I can run four days a week.",
        "answer": "Here is a **12-week plan** for your half marathon this autumn:\n\n"
        "1. Weeks 1–4: three easy runs of 5–6 km and one long run building from 8 to 12 km.\n"
        "2. Weeks 5–8: add intervals (6 × 800 m) on Tuesdays.\n"
        "3. Weeks 9–12: long runs up to 18 km, then a two-week taper.\n\n"
        "The course and registration: https://www.leipzig-marathon.de/en/registration-and-race-information\n\n"
        "```python\nweekly_km = [22, 24, 26, 20, 28, 30, 32, 25, 34, 36, 30, 20]  # planned distance per week\n```",
        "memories": [
            ("Wants to run a half marathon this autumn", "goal"),
            ("Prefers concise answers with code examples", "preference"),
            ("Works as a piano teacher in Leipzig and teaches on Mondays, Wednesdays and Saturdays", "fact"),
            ("Always double-check time zones when scheduling lessons with students abroad", "lesson"),
            ("Keeps training notes at https://notes.example.org/running/2025/half-marathon-plan", "fact"),
        ],
        "suggestion": "Can run four days a week",
        "token": "Work laptop (Firefox)",
    },
    "zh-hans": {
        "title": "为十月的莱比锡半程马拉松制定训练计划",
        "others": [
            "德累斯顿周末游：火车、博物馆和吃饭的地方",
            "为什么我的酸面团酵头有丙酮的味道？",
            "把课程排班程序改成使用 zoneinfo",
        ],
        "question": "我想参加今年秋天的莱比锡半程马拉松，能帮我制定一个十二周的训练计划吗？我每周可以跑四天。",
        "answer": "根据你今年秋天跑半程马拉松的目标，这是一个**十二周计划**：\n\n"
        "1. 第1–4周：每周三次5–6公里轻松跑，一次长距离跑从8公里增加到12公里。\n"
        "2. 第5–8周：每周二加入间歇跑（6 × 800米）。\n"
        "3. 第9–12周：长距离跑增加到18公里，最后两周减量。\n\n"
        "赛道和报名：https://www.leipzig-marathon.de/en/registration-and-race-information\n\n"
        "```python\nweekly_km = [22, 24, 26, 20, 28, 30, 32, 25, 34, 36, 30, 20]  # 每周计划跑量\n```",
        "memories": [
            ("想在今年秋天跑一次半程马拉松", "goal"),
            ("喜欢简洁、带代码示例的回答", "preference"),
            ("在莱比锡当钢琴老师，每周一、周三和周六上课", "fact"),
            ("和国外的学生约课时一定要再核对一次时区", "lesson"),
            ("训练笔记在 https://notes.example.org/running/2025/half-marathon-plan", "fact"),
        ],
        "suggestion": "每周可以跑四天",
        "token": "工作用的笔记本电脑（Firefox）",
    },
}

# Every visible element that ends past the viewport's right edge (or starts left of 0), and every box
# that scrolls sideways although it should wrap; code blocks scroll on purpose.
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.classList.length ? '.' + [...el.classList].join('.') : '');
  const found = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('pre')) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    if (box.right > width + 0.5 || box.left < -0.5)
      found.push(`${name(el)} spans ${Math.round(box.left)}..${Math.round(box.right)}`);
    const sideways = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    if (sideways && el.tagName !== 'TEXTAREA' && el.scrollWidth > el.clientWidth + 1)
      found.push(`${name(el)} scrolls sideways (${el.scrollWidth} > ${el.clientWidth})`);
  }
  if (document.documentElement.scrollWidth > width)
    found.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  return found;
}"""


def _seed(alice, language: str) -> Conversation:
    text = CONTENT[language]
    memories = [add_memory(alice, content, kind=kind, importance=0.7).memory for content, kind in text["memories"]]
    for title in text["others"]:
        other = Conversation.objects.create(user=alice, title=title)
        Message.objects.create(conversation=other, role=Role.USER, content=title)
    chat = Conversation.objects.create(user=alice, title=text["title"])
    Message.objects.create(conversation=chat, role=Role.USER, content=text["question"])
    answer = Message.objects.create(conversation=chat, role=Role.ASSISTANT, content=text["answer"])
    for rank, memory in enumerate(memories[:3], start=1):
        Citation.objects.create(message=answer, memory=memory, score=0.9 - rank / 10, rank=rank)
    MemorySuggestion.objects.create(
        user=alice, conversation=chat, content=text["suggestion"], kind="fact", importance=0.5, confidence=0.8
    )
    create_token(alice, text["token"])
    revoked, _ = create_token(alice, "ci")
    revoke_token(alice, revoked.pk)
    return chat


def _assert_fits(page: Page, width: int, controls: list[str], shot: str) -> None:
    page.set_viewport_size({"width": width, "height": 780})
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{shot}-{width}.png"), full_page=True)
    assert page.evaluate(OVERFLOWING) == [], f"{shot} at {width} px"
    viewport = page.evaluate("document.documentElement.clientWidth")
    for selector in controls:
        control = page.locator(selector).first
        expect(control).to_be_visible()
        box = control.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport, f"{selector} at {box} on {shot} at {width} px"


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_fits_the_chat_on_a_phone(page: Page, offline_server, alice, language):
    chat = off_loop(_seed, alice, language)
    log_in(page, offline_server.url, language, f"/c/{chat.pk}/")
    expect(page.locator(".offline-banner")).to_be_visible()
    expect(page.locator(".citations .chip")).to_have_count(3)
    controls = [
        "#composer textarea",
        "#composer button.send",
        "#temporary-toggle",
        ".sidebar .new-chat",
        ".chat-list > summary",
        ".chat-manage summary",
    ]
    for width in WIDTHS:
        _assert_fits(page, width, controls, f"chat-{language}")

    page.locator("#temporary-toggle").click()  # a temporary chat adds its banner and the toggle reads "on"
    expect(page.locator(".temporary-banner")).to_be_visible()
    for width in WIDTHS:
        _assert_fits(page, width, controls[:4], f"chat-temporary-{language}")
    # Close the chat's socket and let its last requests finish before the test database is flushed: a
    # write still in flight there deadlocked against the flush's TRUNCATE once (a fresh-machine run).
    page.goto("about:blank")
    page.wait_for_timeout(300)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_shows_the_message_box_on_a_phone_as_the_chat_opens(page: Page, offline_server, alice, language, shots):
    chat = off_loop(_seed, alice, language)
    page.set_viewport_size({"width": 390, "height": 844})  # a common phone
    log_in(page, offline_server.url, language, f"/c/{chat.pk}/")
    expect(page.locator(".citations .chip")).to_have_count(3)
    for control in ("#composer textarea", "#composer button.send"):
        expect(page.locator(control)).to_be_in_viewport(ratio=1)
    expect(page.locator(".message-assistant .message-body")).to_be_in_viewport()  # the answer's end, scrolled to
    page.screenshot(path=str(shots / f"chat-phone-{language}.png"))
    chats = page.locator("#conversation-list")
    expect(chats).to_be_hidden()  # folded into one line, one tap away
    page.locator(".chat-list > summary").click()
    expect(chats).to_contain_text(CONTENT[language]["others"][0])
    expect(page.locator(".chat-list input[type=search]")).to_be_visible()
    assert page.evaluate(OVERFLOWING) == []
    page.goto("about:blank")  # the chat's socket closes before the test database is flushed
    page.wait_for_timeout(300)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_fits_the_memories_page_on_a_phone(page: Page, offline_server, alice, language):
    off_loop(_seed, alice, language)
    log_in(page, offline_server.url, language, "/settings/memories")
    expect(page.locator(".memory-card")).to_have_count(5)
    expect(page.locator(".suggestion")).to_have_count(1)
    controls = [
        ".mem-filters input[name=q]",
        ".mem-filters button[type=submit]",
        "form.import input[type=file]",
        "form.import button[type=submit]",
        "#clear-all",
        ".memory-card .mem-actions button",
    ]
    for width in WIDTHS:
        _assert_fits(page, width, controls, f"memories-{language}")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_fits_settings_on_a_phone(page: Page, offline_server, alice, language):
    off_loop(_seed, alice, language)
    log_in(page, offline_server.url, language, "/settings/")
    expect(page.locator(".tokens tbody tr")).to_have_count(2)
    controls = [
        "button[name=save_settings]",
        "form.row input[name=name]",
        "button[name=create_token]",
        "button[name=revoke_token]",
    ]
    for width in WIDTHS:
        _assert_fits(page, width, controls, f"settings-{language}")
