"""The memories page hears of a purge over its websocket, without the purged words."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from memoryapp.engine.memories import purge, write
from tests.support.sockets import app_socket

pytestmark = pytest.mark.django_db(transaction=True)


async def test_the_page_is_told_the_id_and_nothing_else(alice):
    memory = await sync_to_async(lambda: write.add_memory(alice, "Zanzibar-quokka-8812 我的秘密").memory)()
    socket = app_socket("/ws/memories/", alice)
    assert (await socket.connect())[0]
    try:
        await sync_to_async(purge.purge_memory)(memory)
        frame = await socket.receive_from(timeout=5)
        assert f'hx-swap-oob="delete:#memory-{memory.pk}"' in frame  # the card goes
        assert "Zanzibar" not in frame and "秘密" not in frame
    finally:
        await socket.disconnect()
