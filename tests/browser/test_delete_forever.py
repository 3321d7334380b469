"""Delete forever on Settings > Memories, in Chromium against a real Daphne: the browser asks first;
cancel keeps the memory, accept removes it for good, and the Deleted filter no longer lists it; the
account goes only with the right password."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from memoryapp.engine.memories.purge import purge_memory
from memoryapp.engine.memories.write import add_memory, delete_memory
from memoryapp.models import Memory
from tests.conftest import PASSWORD
from tests.support.threads import off_loop

from .test_memories_page import card, open_memories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECRET = "Zanzibar-quokka-8812 我的秘密"


def _deleted_secret(alice) -> Memory:
    add_memory(alice, "Works as a piano teacher in Leipzig")
    memory = add_memory(alice, SECRET).memory
    delete_memory(memory)
    return memory


def test_it_asks_then_deletes_forever_from_the_deleted_filter(page: Page, app_server, alice):
    memory = off_loop(_deleted_secret, alice)
    open_memories(page, app_server, "?status=deleted")
    expect(page.locator("#retention-hint")).to_have_text("Deleted memories are removed for good after 30 days.")
    target = card(page, "Zanzibar")
    asked: list[str] = []

    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    target.get_by_role("button", name="Delete forever").click()
    expect(target).to_be_visible()
    assert asked and "forever" in asked[0]
    assert off_loop(Memory.objects.filter(pk=memory.pk).exists)

    page.once("dialog", lambda dialog: dialog.accept())
    target.get_by_role("button", name="Delete forever").click()
    expect(target).to_have_count(0)
    assert not off_loop(Memory.objects.filter(pk=memory.pk).exists)

    page.reload()
    expect(page.locator("#live-status[data-state=on]")).to_have_count(1)
    expect(card(page, "Zanzibar")).to_have_count(0)
    page.goto(f"{app_server.url}/settings/memories")
    expect(card(page, "piano teacher")).to_be_visible()  # the others stay


def test_it_deletes_the_account_after_the_password(page: Page, app_server, alice):
    off_loop(add_memory, alice, SECRET)
    open_memories(page, app_server)
    page.goto(f"{app_server.url}/settings/")
    form = page.locator("#account-delete-form")

    form.get_by_label("Your password").fill("not my password")
    form.get_by_role("button", name="Delete my account").click()
    expect(page.locator(".errorlist")).to_have_text("That is not your password.")
    assert off_loop(get_user_model().objects.filter(pk=alice.pk).exists)

    page.locator("#id_password").fill(PASSWORD)
    page.get_by_role("button", name="Delete my account").click()
    expect(page.locator("h1")).to_have_text("Your account was deleted")
    assert not off_loop(get_user_model().objects.filter(pk=alice.pk).exists)
    page.goto(f"{app_server.url}/settings/memories")
    expect(page.locator("h1")).to_have_text("Log in")  # logged out


def test_a_memory_purged_elsewhere_leaves_the_open_page(page: Page, app_server, alice):
    memory = off_loop(lambda: add_memory(alice, SECRET).memory)
    open_memories(page, app_server)
    expect(card(page, "Zanzibar")).to_be_visible()

    off_loop(purge_memory, memory)  # e.g. through the API, or the page in another tab

    expect(card(page, "Zanzibar")).to_have_count(0)
