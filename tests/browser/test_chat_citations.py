"""A reply with a model cites what it marked: each `[n]` becomes the memory's chip in place, and the chips
under the reply are those alone (engine/chat/citations.py), in Chromium against a real Daphne."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from conversations.models import Citation
from memoryapp.engine.memories.write import add_memory
from tests.support.llm_server import CHAT_TURN, Chunks, _last_user, system_text
from tests.support.threads import off_loop

from .test_chat import _log_in, _send

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = {
    "en": {
        "memories": ("I am vegetarian", "I cook dinner for two on weekdays", "I am learning to play the cello"),
        "ask": "What should I cook for dinner tonight? I am vegetarian and I cook for two",
        "reply": (
            "Since you're vegetarian",
            " [",
            "{a}",
            "] and cook for two",
            " [{c}, 9]",
            ", try a lentil curry [{c}].",
        ),
        "shown": "Since you're vegetarian",
        "label": "Based on memory:",
    },
    "zh-hans": {
        "memories": ("我吃素", "我工作日给两个人做晚饭", "我在学拉大提琴"),
        "ask": "今晚做什么晚饭好？我吃素，给两个人做",
        "reply": ("你吃素", "[", "{a}", "]，又是两个人吃", "[{c}, 9]", "，可以做扁豆咖喱[{c}]。"),
        "shown": "你吃素",
        "label": "依据记忆：",
    },
}


def _numbers(system: str, contents: tuple[str, ...]) -> dict[str, int]:
    """The number the prompt gave each memory."""
    return {c: int(n) for n, c in re.findall(r"^\[(\d+)\] (.+)$", system, re.MULTILINE) if c in contents}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_chips_are_exactly_the_memories_the_reply_marked(page: Page, app_server, alice, language, shots):
    text = TEXT[language]
    first, second, third = (off_loop(add_memory, alice, content, kind="fact").memory for content in text["memories"])
    seen = {}

    def reply(body: dict):
        system = system_text(body)
        if CHAT_TURN not in system:
            return _last_user(body)  # a background task's request: as if unscripted
        seen.update(_numbers(system, text["memories"]))
        a, c = seen[first.content], seen[second.content]
        # "[", "1", "]": a marker split across deltas; 9: a number the prompt never listed.
        return Chunks(tuple(piece.format(a=a, c=c) for piece in text["reply"]))

    app_server.llm.default = reply
    try:
        _log_in(page, app_server, language)
        # The chips the stream itself draws, before the saved reply replaces it.
        page.evaluate("""() => { window.streamedChips = [];
          new MutationObserver(() => document.querySelectorAll("[id^=pending-] .chip-inline").forEach(chip => {
            if (!window.streamedChips.includes(chip)) window.streamedChips.push(chip); }))
          .observe(document.body, {childList: true, subtree: true}); }""")
        _send(page, text["ask"])
        reply_box = page.locator(".message-assistant").last
        expect(reply_box.locator(".citations .chip")).to_have_count(2, timeout=30_000)
    finally:
        app_server.llm.default = None

    assert set(seen) == {first.content, second.content, third.content}  # all three were handed, numbered
    assert page.evaluate("window.streamedChips.map(c => c.dataset.memoryId)") == [
        str(first.pk),
        str(second.pk),
        str(second.pk),
    ]
    under = reply_box.locator(".citations .chip")
    assert {under.nth(i).get_attribute("data-memory-id") for i in range(2)} == {str(first.pk), str(second.pk)}
    inline = reply_box.locator(".message-body .chip-inline")
    assert [inline.nth(i).get_attribute("data-memory-id") for i in range(inline.count())] == [
        str(first.pk),
        str(second.pk),
        str(second.pk),
    ]
    expect(reply_box.locator(f".chip[data-memory-id='{third.pk}']")).to_have_count(0)  # offered, never marked
    body = reply_box.locator(".message-body")
    expect(body).to_contain_text(text["shown"])
    assert "[" not in body.inner_text() and "9" not in body.inner_text()  # no marker left, the invented one gone
    expect(reply_box.locator(".citations-label")).to_have_text(text["label"])
    cited = Citation.objects.filter(memory__user=alice)
    assert {(c.memory_id, c.used) for c in cited} == {(first.pk, True), (second.pk, True), (third.pk, False)}

    expect(inline.first).to_have_attribute("title", first.content)
    inline.first.hover()
    page.screenshot(path=str(shots / f"chat-inline-chips-{language}.png"), full_page=True)
    inline.first.click()  # a chip opens its memory
    expect(page.locator(f"#memory-{first.pk}.focus")).to_be_visible()
