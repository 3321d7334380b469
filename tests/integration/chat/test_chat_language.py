"""The reply's language on the embedded default (offline model): a Chinese user gets Chinese."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from conversations.models import Conversation
from tests.support.sockets import REPLY_SAVED, app_socket, frames_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("text", ["我们项目用 Drizzle 还是 Prisma？", "我们项目用 Drizzle ORM 还是 Prisma ORM？"])
async def test_it_answers_a_chinese_message_that_names_products_in_chinese(alice, use_offline_llm, text):
    conversation = await sync_to_async(Conversation.objects.create)(user=alice)
    socket = app_socket(f"/ws/chat/{conversation.pk}/?lang=zh-hans", alice)
    assert (await socket.connect())[0]
    try:
        await socket.send_json_to({"action": "send", "text": text})
        frames = await frames_until(socket, REPLY_SAVED)
    finally:
        await socket.disconnect()
    reply = await sync_to_async(lambda: conversation.messages.get(role="assistant").content)()
    assert reply.startswith("尚未配置语言模型"), reply
    assert "No language model" not in frames
