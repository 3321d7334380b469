"""The chat's "Keeping in mind for this chat" panel in Chromium against a real Daphne: on a phone in English
and Chinese (folded, nothing past the right edge), edited from the page (add, edit, remove, Clear all), and
live in every tab of the chat, whoever changed it (another tab, or a program through the store)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from conversations.models import Conversation, Message, Role
from memoryapp.engine.chat_state import store
from tests.browser.test_narrow_screens import OVERFLOWING
from tests.support.browser import log_in
from tests.support.servers import offline_server  # noqa: F401  (a fixture)
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ENTRIES = {
    "en": {
        "destination": "Lisbon, then the coast south to Lagos",
        "dates": {"from": "2026-05-02", "to": "2026-05-09"},
        "budget": "about 1,800 EUR for two, flights included",
        "hotel wishes": ["quiet street", "breakfast", "a room with a view of the river Tagus"],
    },
    "zh-hans": {
        "destination": "里斯本，然后沿海岸往南到拉各斯",
        "dates": {"从": "5月2日", "到": "5月9日"},
        "budget": "两个人大约一万四千元，含机票",
        "酒店要求": ["安静的街道", "含早餐", "能看到特茹河的房间"],
    },
}
TITLE = {"en": "Keeping in mind for this chat", "zh-hans": "本次对话记着的事"}
# Counts the chat page's open websockets (its own and the memory events'), so a test changes the entries
# only once both tabs listen.
SOCKETS = "document.addEventListener('htmx:wsOpen', () => { window.openSockets = (window.openSockets || 0) + 1; });"


@pytest.fixture(autouse=True)
def _clean_store(alice):
    off_loop(store.clear_user, alice.pk)  # ids come back in a later session's fresh database
    yield
    off_loop(store.clear_user, alice.pk)


def _chat(alice, language: str = "en", entries: dict | None = None) -> Conversation:
    chat = Conversation.objects.create(user=alice, title="Lisbon trip" if language == "en" else "里斯本之行")
    Message.objects.create(conversation=chat, role=Role.USER, content="Plan a week in Portugal")
    if entries:
        store.put(alice.pk, store.chat_session(chat.pk), entries, by="chat")
    return chat


def _listening(page: Page) -> None:
    page.wait_for_function("window.openSockets >= 2")


def _leave(*pages: Page) -> None:
    """Close the chat's sockets before the test database is flushed (tests/browser/test_narrow_screens.py)."""
    for page in pages:
        page.goto("about:blank")
    pages[0].wait_for_timeout(300)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_fits_the_panel_on_a_phone(page: Page, offline_server, alice, language, shots):
    chat = off_loop(_chat, alice, language, ENTRIES[language])
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, offline_server.url, language, f"/c/{chat.pk}/")
    panel = page.locator("#chat-state")
    expect(panel.locator("summary").first).to_contain_text(f"{TITLE[language]} (4)")
    expect(panel.locator(".state-list")).to_be_hidden()  # folded to one line: the message box stays in view
    expect(page.locator("#composer textarea")).to_be_in_viewport(ratio=1)
    panel.locator("summary").first.click()
    expect(panel.locator(".state-entry")).to_have_count(4)
    dates = panel.locator(".state-entry", has_text="Dates" if language == "en" else "日期").locator(".state-value")
    expect(dates).to_have_text("from: 2026-05-02, to: 2026-05-09" if language == "en" else "从：5月2日，到：5月9日")
    panel.locator(".state-edit summary").first.click()
    panel.locator(".state-add summary").click()
    page.screenshot(path=str(shots / f"chat-state-phone-{language}.png"), full_page=True)
    assert page.evaluate(OVERFLOWING) == []
    if language == "zh-hans":
        expect(panel.locator(".state-label", has_text="目的地")).to_have_count(1)
    _leave(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_shows_a_hint_when_empty(page: Page, offline_server, alice, language):
    chat = off_loop(_chat, alice, language)
    log_in(page, offline_server.url, language, f"/c/{chat.pk}/")
    hint = {
        "en": "Nothing yet: details of the task at hand (dates, places, budget) appear here as you chat.",
        "zh-hans": "还没有：聊天时，手头任务的细节（日期、地点、预算）会出现在这里。",
    }
    expect(page.locator("#chat-state .state-hint")).to_have_text(hint[language])
    _leave(page)


def test_it_adds_edits_removes_and_clears_from_the_page(page: Page, offline_server, alice, shots):
    chat = off_loop(_chat, alice)
    session = store.chat_session(chat.pk)
    log_in(page, offline_server.url, "en", f"/c/{chat.pk}/")
    panel = page.locator("#chat-state")

    panel.locator(".state-add summary").click()
    page.fill("#state-add-key", "budget")
    page.fill("#state-add-value", "1200")
    panel.locator(".state-add button[type=submit]").click()
    expect(panel.locator(".state-entry")).to_have_count(1)
    expect(panel.locator(".state-label")).to_have_text("Budget")
    assert off_loop(store.get, alice.pk, session, "budget").value == 1200  # read as JSON: a number

    page.fill("#state-add-key", "dates")
    page.fill("#state-add-value", '{"from": "May 2", "to": "May 9"}')
    panel.locator(".state-add button[type=submit]").click()
    expect(panel.locator(".state-entry", has_text="Dates").locator(".state-value")).to_have_text(
        "from: May 2, to: May 9"
    )
    expect(panel.locator("summary").first).to_contain_text("(2)")

    entry = panel.locator(".state-entry", has_text="Budget")
    entry.locator(".state-edit summary").click()
    entry.locator("textarea").fill("about 1,500 EUR")
    entry.locator(".state-edit button[type=submit]").click()
    expect(panel.locator(".state-entry", has_text="Budget").locator(".state-value")).to_have_text("about 1,500 EUR")

    entry = panel.locator(".state-entry", has_text="Dates")
    entry.locator(".state-edit summary").click()
    entry.locator("textarea").fill("")
    entry.locator("textarea").press_sequentially(" ")
    page.evaluate("document.querySelectorAll('#chat-state textarea').forEach((box) => box.removeAttribute('required'))")
    entry.locator(".state-edit button[type=submit]").click()
    expect(panel.locator(".state-error")).to_have_text("This field is required.")  # in its form, kept open
    page.screenshot(path=str(shots / "chat-state-error-en.png"), full_page=True)

    panel.locator(".state-entry", has_text="Budget").locator(".state-remove button").click()
    expect(panel.locator(".state-entry")).to_have_count(1)
    assert off_loop(store.get, alice.pk, session, "budget") is None

    questions = []
    page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.accept()))
    panel.locator(".state-clear button").click()
    expect(panel.locator(".state-hint")).to_be_visible()
    assert questions == ["Clear everything this chat keeps in mind?"]
    assert off_loop(store.entries, alice.pk, session) == []
    _leave(page)


def test_it_shows_changes_live_in_every_tab_of_the_chat(page: Page, offline_server, alice, shots):
    chat = off_loop(_chat, alice)
    page.add_init_script(SOCKETS)
    log_in(page, offline_server.url, "en", f"/c/{chat.pk}/")
    other = page.context.new_page()
    other.add_init_script(SOCKETS)
    other.goto(f"{offline_server.url}/c/{chat.pk}/")
    _listening(page)
    _listening(other)

    page.locator("#chat-state .state-add summary").click()
    page.fill("#state-add-key", "destination")
    page.fill("#state-add-value", "Lisbon")
    page.locator("#chat-state .state-add button[type=submit]").click()
    mirror = other.locator("#chat-state")
    expect(mirror.locator(".state-value")).to_have_text("Lisbon")  # no reload
    expect(mirror.locator("summary").first).to_contain_text("(1)")

    # A program (the API, MCP) or the chat turn writes through the store: both tabs show it.
    off_loop(store.put, alice.pk, store.chat_session(chat.pk), {"people": 2}, by="token:1")
    for tab in (page, other):
        expect(tab.locator("#chat-state .state-entry", has_text="People")).to_contain_text("2")

    # A tab whose entry is being edited keeps its list (and the typed text) until it saves.
    other.locator("#chat-state .state-entry", has_text="Destination").locator(".state-edit summary").click()
    other.locator("#chat-state .state-entry", has_text="Destination").locator("textarea").fill("Porto")
    off_loop(store.put, alice.pk, store.chat_session(chat.pk), {"date": "May 2"}, by="chat")
    expect(page.locator("#chat-state .state-entry")).to_have_count(3)
    expect(other.locator("#chat-state textarea").first).to_have_value("Porto")
    other.locator("#chat-state .state-entry", has_text="Destination").locator(".state-edit button[type=submit]").click()
    expect(other.locator("#chat-state .state-entry")).to_have_count(3)
    expect(page.locator("#chat-state .state-entry", has_text="Destination")).to_contain_text("Porto")

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#chat-state .state-clear button").click()
    expect(other.locator("#chat-state .state-hint")).to_be_visible()
    other.screenshot(path=str(shots / "chat-state-live-en.png"), full_page=True)
    _leave(page, other)
