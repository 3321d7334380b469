"""The test browser draws with the repo's fonts only (tests/browser/fonts.conf), whatever else the machine
has installed, and Chinese text comes out in Noto Sans CJK rather than boxes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The families of the files fonts.conf accepts (fonts-dejavu-core, and fonts-noto-cjk's Sans CJK collection).
REPO_FAMILIES = {"DejaVu Sans", "DejaVu Sans Mono", "DejaVu Serif"} | {
    f"Noto Sans{mono} CJK {region}" for mono in ("", " Mono") for region in ("SC", "TC", "HK", "JP", "KR")
}


def fonts_drawing(page: Page, selector: str) -> dict[str, set[str]]:
    """The platform fonts Chromium drew each matching element's own text with, by the element's text."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    drawn: dict[str, set[str]] = {}
    for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]:
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        if fonts:
            text = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]
            drawn[text] = {font["familyName"] for font in fonts}
    cdp.detach()
    return drawn


def test_it_draws_latin_and_chinese_with_the_repos_fonts_only(page: Page, app_server):
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": app_server.url}])
    page.goto(f"{app_server.url}/accounts/login/")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.locator("main button[type=submit]")).to_have_text("登录")

    drawn = fonts_drawing(page, "body *")
    used = set().union(*drawn.values())
    assert used <= REPO_FAMILIES, f"fonts from outside tests/browser/fonts.conf: {used - REPO_FAMILIES}"
    brand = next(families for html, families in drawn.items() if "brand" in html)
    assert brand == {"DejaVu Sans"}  # "memoryapp", Latin
    button = next(families for html, families in drawn.items() if "登录" in html and html.startswith("<button"))
    assert button == {"Noto Sans CJK SC"}  # simplified Chinese glyphs, not another region's or boxes
