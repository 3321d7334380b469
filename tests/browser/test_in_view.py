"""What a click opens comes into view and covers no message: the memory graph's card (from a node in the
drawing), a reply's citation chip and the chat's "Rename or delete" panel, on a desktop window and a 390-px
phone, in English and Chinese."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from conversations.models import Citation, Conversation, Message, Role
from memoryapp.engine.memories.write import add_memory
from tests.support.browser import log_in
from tests.support.threads import off_loop

from .test_memory_graph import _seed as _seed_graph

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# The elements matching `guarded` that `target` is drawn over: a point of their visible part (clipped by every
# scrolling box around them and the window) where the target is on top. The one holding the target is skipped.
COVERED = """([target, guarded]) => {
  const over = document.querySelector(target), found = new Set();
  for (const el of document.querySelectorAll(guarded)) {
    if (el.contains(over)) continue;
    let { left, top, right, bottom } = el.getBoundingClientRect();
    for (let box = el.parentElement; box; box = box.parentElement) {
      const style = getComputedStyle(box);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const clip = box.getBoundingClientRect();
      [left, top, right, bottom] = [Math.max(left, clip.left), Math.max(top, clip.top),
                                    Math.min(right, clip.right), Math.min(bottom, clip.bottom)];
    }
    [left, top, right, bottom] = [Math.max(left, 0), Math.max(top, 0), Math.min(right, innerWidth), Math.min(bottom, innerHeight)];
    for (let x = left + 1; x < right; x += 8)
      for (let y = top + 1; y < bottom; y += 8)
        if (over.contains(document.elementFromPoint(x, y))) found.add(el.id || el.className);
  }
  return [...found];
}"""
# How many messages show at least a line in the message list.
SHOWN_MESSAGES = """() => {
  const list = document.getElementById('messages').getBoundingClientRect();
  return [...document.querySelectorAll('#messages .message')].filter((m) => {
    const box = m.getBoundingClientRect();
    return Math.min(box.bottom, list.bottom, innerHeight) - Math.max(box.top, list.top, 0) >= 16;
  }).length;
}"""
NODE_AT = """(id) => {
  const cy = document.getElementById('graph-root').graph, p = cy.getElementById(id).renderedPosition();
  const box = cy.container().getBoundingClientRect();
  return [box.left + p.x, box.top + p.y];
}"""


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_nodes_card_opens_in_view_and_takes_the_focus(page: Page, app_server, alice, language, viewport):
    piano = off_loop(_seed_graph, alice)["piano"]
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, app_server.url, language, "/settings/memories/graph")
    expect(page.locator("#graph-root[data-listed]")).to_have_count(1)
    page.locator("#graph-canvas").scroll_into_view_if_needed()

    card = page.locator(f"#graph-card #memory-{piano.pk}")
    for _attempt in range(3):  # a live redraw (a worker's late mark) between reading the node's place and the click
        page.wait_for_function(
            "() => document.getElementById('graph-root').dataset.listed"
            " === document.getElementById('graph-root').dataset.drawn"
        )
        page.mouse.click(*page.evaluate(NODE_AT, f"m{piano.pk}"))
        try:
            card.wait_for(timeout=5000)
            break
        except PlaywrightTimeoutError:
            continue
    box = page.locator("#graph-card-box")
    expect(box).to_be_focused()
    expect(box).to_be_in_viewport(ratio=1)
    assert page.evaluate(COVERED, ["#graph-card-box", "#graph-canvas"]) == []  # beside or under the drawing


TEXT = {
    "en": {
        "title": "Training plan for the Leipzig half marathon in October",
        "turns": [
            (
                "Can you draft a 12-week plan? I can run four days a week.",
                "Here is a **12-week plan**: " + "easy runs, " * 30,
            ),
            ("What should I eat the evening before the race?", "Pasta or rice, nothing new, and plenty of water."),
            ("And on race morning?", "A light breakfast three hours before the start: toast, a banana, coffee."),
        ],
        "memories": ("Wants to run a half marathon this autumn", "Is vegetarian and cooks for two on weekdays"),
    },
    "zh-hans": {
        "title": "为十月的莱比锡半程马拉松制定训练计划",
        "turns": [
            ("能帮我制定一个十二周的训练计划吗？我每周可以跑四天。", "这是一个**十二周计划**：" + "轻松跑，" * 40),
            ("比赛前一天晚上吃什么好？", "意大利面或米饭，不要尝试新东西，多喝水。"),
            ("比赛当天早上呢？", "开跑前三个小时吃一顿清淡的早餐：吐司、香蕉、咖啡。"),
        ],
        "memories": ("想在今年秋天跑一次半程马拉松", "吃素，工作日给两个人做饭"),
    },
}


def _seed_chat(alice, language: str) -> Conversation:
    text = TEXT[language]
    memories = [add_memory(alice, content, kind="fact").memory for content in text["memories"]]
    chat = Conversation.objects.create(user=alice, title=text["title"])
    for question, answer in text["turns"]:
        Message.objects.create(conversation=chat, role=Role.USER, content=question)
        reply = Message.objects.create(conversation=chat, role=Role.ASSISTANT, content=answer)
    for rank, memory in enumerate(memories, start=1):  # the last reply's chips, at the foot of the list
        Citation.objects.create(message=reply, memory=memory, score=0.9 - rank / 10, rank=rank)
    return chat


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_rename_panel_and_a_chips_card_open_in_view_over_no_message(
    page: Page, app_server, alice, language, viewport
):
    chat = off_loop(_seed_chat, alice, language)
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, app_server.url, language, f"/c/{chat.pk}/")
    expect(page.locator(".citations .chip")).to_have_count(2)

    panel = page.locator(".chat-manage")
    panel.locator("summary").click()
    expect(panel.locator("input[name=title]")).to_be_visible()
    expect(panel).to_be_in_viewport(ratio=1)
    assert page.evaluate(COVERED, [".chat-manage", "#messages .message"]) == []
    assert page.evaluate(SHOWN_MESSAGES) >= 1  # pushed down, not squeezed out
    panel.locator("summary").click()

    chip = page.locator(".message-assistant .citations .chip").last
    chip.locator("summary").click()
    detail = chip.locator(".chip-detail")
    expect(detail).to_contain_text(TEXT[language]["memories"][1])
    expect(detail).to_be_in_viewport(ratio=1)  # the list scrolled to it
    assert page.evaluate(COVERED, [".chip[open] .chip-detail", "#messages .message"]) == []
    page.goto("about:blank")  # the chat's socket closes before the test database is flushed
    page.wait_for_timeout(300)
