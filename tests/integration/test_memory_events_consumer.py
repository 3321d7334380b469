"""`memory.*` events over the websocket: only the owner hears them."""
from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from memoryapp.engine import write
from memoryapp.events import user_group
from tests.support.sockets import app_socket

pytestmark = pytest.mark.django_db(transaction=True)


async def _connect(user=None) -> WebsocketCommunicator:
    return app_socket("/ws/memories/", user)


async def test_it_refuses_an_anonymous_socket():
    communicator = await _connect()
    connected, code = await communicator.connect()
    assert not connected
    await communicator.disconnect()


async def test_it_delivers_the_owners_events_and_not_another_users(alice, bob):
    alice_socket, bob_socket = await _connect(alice), await _connect(bob)
    # AuthMiddlewareStack would replace a preset user; connect through the consumer's scope instead.
    assert (await alice_socket.connect())[0]
    assert (await bob_socket.connect())[0]
    try:
        layer = get_channel_layer()
        tea = await sync_to_async(lambda: write.add_memory(alice, "I like green tea").memory)()
        await alice_socket.receive_json_from(timeout=5)  # its own event
        await layer.group_send(user_group(alice.pk), {"type": "memory.created", "id": tea.pk, "action": "created",
                                                      "count": 1})
        message = await alice_socket.receive_json_from(timeout=5)
        assert message["event"] == "memory.created" and message["memory"]["content"] == "I like green tea"
        assert await bob_socket.receive_nothing(timeout=0.5)
    finally:
        await alice_socket.disconnect()
        await bob_socket.disconnect()
