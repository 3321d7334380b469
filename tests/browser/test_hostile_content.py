"""Markup in a memory, a chat title and a reply is shown as text in a real browser: no script runs,
and the Content-Security-Policy blocks nothing the app itself needs."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from conversations.models import Citation, Conversation, Message
from memoryapp.engine.memories.write import add_memory
from tests.support.threads import off_loop

from .test_memories_page import open_memories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
MARKUP = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'


def _seed(alice) -> int:
    memory = add_memory(alice, f"My bio is {MARKUP}").memory
    conversation = Conversation.objects.create(user=alice, title=f"Chat {MARKUP}")
    Message.objects.create(conversation=conversation, role="user", content=f"Remember {MARKUP}")
    reply = Message.objects.create(conversation=conversation, role="assistant", content=f"Noted [1]: {MARKUP}")
    Citation.objects.create(message=reply, memory=memory, score=0.9, rank=1)
    return conversation.pk


def test_markup_is_shown_as_text_and_never_runs(page: Page, app_server, alice):
    conversation_id = off_loop(_seed, alice)
    dialogs, violations = [], []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )

    open_memories(page, app_server)
    expect(page.locator(".memory-card", has_text="<script>window.pwned=2</script>")).to_have_count(1)

    page.goto(f"{app_server.url}/c/{conversation_id}/")
    expect(page.locator(".message-user")).to_contain_text("<img src=x")
    expect(page.locator(".citations")).to_contain_text("My bio is <img src=x")
    expect(page.locator(".message-body .chip-inline")).to_have_attribute("title", f"My bio is {MARKUP}")
    page.wait_for_function("window.htmx !== undefined")

    assert page.evaluate("window.pwned") is None
    assert page.locator("main img[src=x]").count() == 0 and not dialogs
    assert not violations, violations
