"""A chat shown in one browser tab (its websocket open) survives whatever another tab opens; it ends (a
temporary one is discarded) when its own tab leaves it, and a reload is not leaving."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from conversations.models import Conversation, Message
from tests.support.sockets import chat_socket

pytestmark = pytest.mark.django_db(transaction=True)
GRACE = 0.5


@pytest.fixture(autouse=True)
def short_grace(settings):
    settings.CHAT_TAB_GRACE_SECONDS = GRACE


@sync_to_async
def _chat(user, temporary: bool = False) -> Conversation:
    conversation = Conversation.objects.create(user=user, title="Trip to Kyoto", temporary=temporary)
    Message.objects.create(conversation=conversation, role="user", content="Plan a trip to Kyoto")
    return conversation


@sync_to_async
def _state(conversation: Conversation) -> str:
    """ "gone", "ended" or "open"."""
    found = Conversation.objects.filter(pk=conversation.pk).first()
    return "gone" if found is None else "ended" if found.ended_at else "open"


async def _open_tab(user, conversation: Conversation):
    socket = chat_socket(user, conversation.pk)
    assert (await socket.connect())[0]
    return socket


async def _after_grace() -> None:
    await asyncio.sleep(GRACE + 1)


@pytest.mark.parametrize("elsewhere", ["/", "other chat", "/c/new/"])
async def test_it_keeps_a_chat_open_in_one_tab_whatever_another_tab_opens(alice, alice_client, elsewhere):
    kept, temporary, other = await _chat(alice), await _chat(alice, temporary=True), await _chat(alice)
    tabs = [await _open_tab(alice, kept), await _open_tab(alice, temporary)]
    try:
        if elsewhere == "/c/new/":
            assert (await sync_to_async(alice_client.post)("/c/new/", {"temporary": "on"})).status_code == 302
        else:
            path = f"/c/{other.pk}/" if elsewhere == "other chat" else elsewhere
            assert (await sync_to_async(alice_client.get)(path)).status_code == 200
        await _after_grace()
        assert await _state(kept) == "open"
        assert await _state(temporary) == "open"
    finally:
        for tab in tabs:
            await tab.disconnect()
    await _after_grace()  # their own tabs left them: the kept chat ends, the temporary one is gone
    assert await _state(kept) == "ended"
    assert await _state(temporary) == "gone"


async def test_it_keeps_a_chat_through_a_reload(alice):
    kept, temporary = await _chat(alice), await _chat(alice, temporary=True)
    for conversation in (kept, temporary):
        await (await _open_tab(alice, conversation)).disconnect()
    tabs = [await _open_tab(alice, kept), await _open_tab(alice, temporary)]  # back within the grace
    try:
        await _after_grace()
        assert await _state(kept) == "open"
        assert await _state(temporary) == "open"
    finally:
        for tab in tabs:
            await tab.disconnect()
    await _after_grace()


async def test_it_ends_a_chat_when_the_last_of_its_tabs_leaves(alice):
    kept = await _chat(alice)
    first, second = await _open_tab(alice, kept), await _open_tab(alice, kept)
    await first.disconnect()
    await _after_grace()
    assert await _state(kept) == "open"  # the second tab still shows it
    await second.disconnect()
    await _after_grace()
    assert await _state(kept) == "ended"


async def test_it_gives_a_second_tab_its_own_fresh_chat(alice, alice_client):
    assert (await sync_to_async(alice_client.get)("/")).status_code == 200
    fresh = await sync_to_async(Conversation.objects.get)(user=alice)
    tab = await _open_tab(alice, fresh)
    try:
        second = await sync_to_async(alice_client.get)("/")
        assert second.context["conversation"].pk != fresh.pk
    finally:
        await tab.disconnect()
    assert (await sync_to_async(alice_client.get)("/")).status_code == 200  # no tab shows them: one is reused
    assert await sync_to_async(Conversation.objects.filter(user=alice).count)() == 2
    await _after_grace()
