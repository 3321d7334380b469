"""One language per user: the header's picker and the settings form show and save the same value."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from memoryapp.models import MemorySettings

pytestmark = pytest.mark.django_db

SETTINGS = {
    "save_settings": "1",
    "memory_enabled": "on",
    "auto_extract": "on",
    "show_citations": "on",
    "extract_every_n_turns": "5",
}


def _form_language(page: str) -> str:
    """The value the settings form's language field shows ("" is "Browser default")."""
    select = re.search(r'<select name="language"[^>]*id="id_language"[^>]*>(.*?)</select>', page, re.S).group(1)
    return re.search(r'<option value="([^"]*)"[^>]*selected', select).group(1)


def _page_language(page: str) -> str:
    return re.search(r'<html lang="([^"]+)"', page).group(1)


def test_it_shows_the_headers_choice_in_the_settings_form_and_keeps_it_when_saved(alice_client, alice):
    response = alice_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/settings/"})
    assert response.status_code == 302 and response["Location"] == "/settings/"

    page = alice_client.get("/settings/").content.decode()
    assert _page_language(page) == "zh-hans" and _form_language(page) == "zh-hans"
    assert MemorySettings.for_user(alice).language == "zh-hans"

    # Saving the form as it shows (another toggle changed) leaves the page in Chinese.
    saved = alice_client.post("/settings/", {**SETTINGS, "show_citations": "", "language": "zh-hans"}, follow=True)
    page = saved.content.decode()
    assert _page_language(page) == "zh-hans" and "设置已保存" in page

    # Signed out, the picker keeps a visitor's choice in the cookie only, and the login page speaks it.
    alice_client.logout()
    alice_client.post("/i18n/setlang/", {"language": "en", "next": "/accounts/login/"})
    assert _page_language(alice_client.get("/accounts/login/").content.decode()) == "en"
    assert MemorySettings.for_user(alice).language == "zh-hans"


def test_it_follows_the_user_to_another_browser_until_they_let_the_browser_decide(alice_client, alice):
    alice_client.post("/settings/", {**SETTINGS, "language": "zh-hans"})

    elsewhere = Client(HTTP_ACCEPT_LANGUAGE="en")
    elsewhere.force_login(alice)
    response = elsewhere.get("/settings/")
    page = response.content.decode()
    assert _page_language(page) == "zh-hans" and _form_language(page) == "zh-hans"
    assert response.cookies["django_language"].value == "zh-hans"  # the login page after a logout agrees

    response = elsewhere.post("/settings/", {**SETTINGS, "language": ""})  # "Browser default"
    assert response.cookies["django_language"].value == ""  # removed
    page = elsewhere.get("/settings/").content.decode()
    assert _page_language(page) == "en" and _form_language(page) == ""
    assert MemorySettings.for_user(alice).language == ""
