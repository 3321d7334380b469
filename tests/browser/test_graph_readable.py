"""The memory graph page reads in English and Chinese: its summary counts in the plural each number takes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import log_in
from tests.support.threads import off_loop

from .test_memory_graph import _seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


SUMMARY = {
    "en": ("Shown: 4 memories (1 replaced), 4 links.", "Shown: 1 memory (0 replaced), 0 links."),
    "zh-hans": ("显示：4 条记忆（其中 1 条已替换），4 条联系。", "显示：1 条记忆（其中 0 条已替换），0 条联系。"),
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_its_summary_counts_in_the_right_plural(page: Page, app_server, alice, language):
    off_loop(_seed, alice)
    log_in(page, app_server.url, language, "/settings/memories/graph")
    everything, one = SUMMARY[language]
    expect(page.locator("#graph-summary")).to_have_text(everything)
    for box in page.locator("#graph-filters input[name=kind]").all():  # only the goal: one memory, no link
        box.set_checked(box.get_attribute("value") == "goal")
    expect(page.locator("#graph-summary")).to_have_text(one)
