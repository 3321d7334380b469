"""Browser-test steps shared by the Playwright suites."""

from __future__ import annotations

from playwright.sync_api import Page, expect

PASSWORD = "correct horse battery staple"  # tests/conftest.py creates alice and bob with it


def log_in(page: Page, server_url: str, language: str, next_url: str) -> None:
    """Log in as alice with the page in `language` (en, zh-hans) and land on `next_url`."""
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server_url}])
    page.goto(f"{server_url}/accounts/login/?next={next_url}")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.locator("main button[type=submit]").click()
    page.wait_for_url(f"{server_url}{next_url}")
    expect(page.locator("html")).to_have_attribute("lang", language)
