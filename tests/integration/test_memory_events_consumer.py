"""`memory.*` events over the websocket: only the owner hears them, as fragments for the page that listens."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from memoryapp import events
from memoryapp.engine.memories import write
from memoryapp.models import MemorySource
from tests.support.sockets import app_socket

pytestmark = pytest.mark.django_db(transaction=True)


async def test_it_refuses_an_anonymous_socket():
    communicator = app_socket("/ws/memories/")
    connected, code = await communicator.connect()
    assert not connected
    await communicator.disconnect()


async def test_it_delivers_the_owners_events_and_not_another_users(alice, bob):
    alice_socket, bob_socket = app_socket("/ws/memories/", alice), app_socket("/ws/memories/", bob)
    # AuthMiddlewareStack would replace a preset user; connect through the consumer's scope instead.
    assert (await alice_socket.connect())[0]
    assert (await bob_socket.connect())[0]
    try:
        tea = await sync_to_async(lambda: write.add_memory(alice, "I like green tea").memory)()
        frame = await alice_socket.receive_from(timeout=5)
        assert f'id="memory-{tea.pk}"' in frame and "I like green tea" in frame  # the card, rendered
        assert 'hx-swap-oob="afterbegin:#memory-list"' in frame  # the page lists every current memory
        assert 'id="mem-stats"' in frame
        assert await bob_socket.receive_nothing(timeout=0.5)
    finally:
        await alice_socket.disconnect()
        await bob_socket.disconnect()


async def test_it_adds_a_card_only_where_the_pages_filters_would_list_it(alice):
    facts, lessons = app_socket("/ws/memories/?kind=fact", alice), app_socket("/ws/memories/?kind=lesson", alice)
    assert (await facts.connect())[0] and (await lessons.connect())[0]
    try:
        await sync_to_async(write.add_memory)(alice, "Lives in Lisbon", kind="fact")
        assert "afterbegin:#memory-list" in await facts.receive_from(timeout=5)
        frame = await lessons.receive_from(timeout=5)
        assert "afterbegin:#memory-list" not in frame and 'id="mem-stats"' in frame  # the counts, not the card
    finally:
        await facts.disconnect()
        await lessons.disconnect()


async def test_it_tells_the_chat_what_it_learnt_and_not_what_another_chat_did(alice):
    from conversations.models import Conversation

    here, there = await sync_to_async(lambda: [Conversation.objects.create(user=alice, title=t) for t in "ab"])()
    socket = app_socket(f"/ws/memories/?conversation={here.pk}&lang=en", alice)
    assert (await socket.connect())[0]
    try:
        await sync_to_async(write.add_memory)(
            alice, "Has a cat", source=MemorySource.EXTRACTED, source_conversation_id=there.pk
        )
        assert await socket.receive_nothing(timeout=1)
        learnt = await sync_to_async(write.add_memory)(
            alice, "Lives in Lisbon", source=MemorySource.EXTRACTED, source_conversation_id=here.pk
        )
        frame = await socket.receive_from(timeout=5)
        assert 'id="notices"' in frame and "Memory updated: «Lives in Lisbon»" in frame
        assert f'data-memory-id="{learnt.memory.pk}"' in frame
        await sync_to_async(write.add_memory)(
            alice, "Works as a nurse", source=MemorySource.EXTRACTED, source_conversation_id=here.pk
        )
        assert "2 memories updated, the latest: «Works as a nurse»" in await socket.receive_from(timeout=5)
        await sync_to_async(events.publish_notice_closed)(alice.pk, here.pk)  # the line was closed
        await sync_to_async(write.add_memory)(
            alice, "Has a dog called Rex", source=MemorySource.EXTRACTED, source_conversation_id=here.pk
        )
        assert "Memory updated: «Has a dog called Rex»" in await socket.receive_from(timeout=5)  # afresh
    finally:
        await socket.disconnect()
