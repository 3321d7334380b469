"""What a click opens comes into view and covers nothing: the memory graph's card (from a node in the
drawing), on a desktop window and a 390-px phone, in English and Chinese."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

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
