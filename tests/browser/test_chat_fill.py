"""The chat on a 390-px phone and a desktop window, in English and Chinese: it is as tall as the window (no
strip of page under it, no page scrolling), with the message box at the foot and its hint whole."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import log_in
from tests.support.threads import off_loop

from .test_in_view import VIEWPORTS, _seed_chat

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The hint as the box's own text: whether it fits the box's lines without scrolling.
HINT_FITS = """() => {
  const box = document.querySelector('#composer textarea'), hint = box.placeholder;
  box.value = hint;
  const fits = box.scrollHeight <= box.clientHeight;
  box.value = '';
  return { hint, fits };
}"""


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_chat_fills_the_screen_with_its_hint_whole(page: Page, app_server, alice, language, viewport):
    chat = off_loop(_seed_chat, alice, language)
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, app_server.url, language, f"/c/{chat.pk}/")
    expect(page.locator(".citations .chip")).to_have_count(2)

    height = VIEWPORTS[viewport]["height"]
    bottom = page.evaluate("document.querySelector('.chat').getBoundingClientRect().bottom")
    assert height - 24 <= bottom <= height, f"the chat ends at {bottom} of {height} px"
    assert page.evaluate("document.documentElement.scrollHeight") <= height  # the messages scroll, not the page
    expect(page.locator("#composer textarea")).to_be_in_viewport(ratio=1)

    hint = page.evaluate(HINT_FITS)
    assert hint["hint"] and hint["fits"], hint
    page.goto("about:blank")  # the chat's socket closes before the test database is flushed
    page.wait_for_timeout(300)
