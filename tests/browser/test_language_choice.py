"""The header's language picker and the settings form in Chromium: one value, whichever sets it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_keeps_the_page_in_the_language_picked_in_the_header_when_settings_are_saved(page: Page, app_server, alice):
    log_in(page, app_server.url, "en", "/settings/")
    header = page.locator("header select[name=language]")
    form = page.locator("#id_language")

    header.select_option("zh-hans")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(form).to_have_value("zh-hans")
    page.get_by_label("显示回复引用了哪些记忆").uncheck()
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_text("设置已保存。")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(header).to_have_value("zh-hans")

    form.select_option("en")
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_text("Settings saved.")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(header).to_have_value("en")
    expect(form).to_have_value("en")
