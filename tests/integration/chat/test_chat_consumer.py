"""The chat websocket: streams the reply for the owner, refuses everyone else."""

from __future__ import annotations

import os

import pytest
from asgiref.sync import sync_to_async

from conversations.models import Conversation
from tests.support.llm_server import Delay, Fail
from tests.support.sockets import chat_socket, frames_until

pytestmark = pytest.mark.django_db(transaction=True)


async def test_it_refuses_another_users_conversation(alice, bob):
    theirs = await sync_to_async(Conversation.objects.create)(user=bob)
    socket = chat_socket(alice, theirs.pk)
    connected, _ = await socket.connect()
    assert not connected
    await socket.disconnect()


async def test_it_streams_the_reply_and_saves_it(alice, llm_server, use_scripted_llm):
    conversation = await sync_to_async(Conversation.objects.create)(user=alice)
    llm_server.script(None, "Hello from the model")
    socket = chat_socket(alice, conversation.pk)
    assert (await socket.connect())[0]
    try:
        await socket.send_json_to({"action": "send", "text": "hi"})
        frames = await frames_until(socket, "outerHTML:#pending-")
        assert 'hx-swap-oob="beforeend">Hello' in frames  # deltas arrive one by one
        assert "Hello from the model" in frames
    finally:
        await socket.disconnect()
    roles = await sync_to_async(lambda: list(conversation.messages.values_list("role", "content")))()
    assert roles == [("user", "hi"), ("assistant", "Hello from the model")]


async def test_it_shows_an_error_and_keeps_the_message_when_the_model_is_down(alice, llm_server, use_scripted_llm):
    conversation = await sync_to_async(Conversation.objects.create)(user=alice)
    llm_server.script(None, Fail(503), Fail(503))  # the SDK retries once
    socket = chat_socket(alice, conversation.pk)
    assert (await socket.connect())[0]
    try:
        await socket.send_json_to({"action": "send", "text": "still there?"})
        frames = await frames_until(socket, "Retry")
        assert "The model is down or too slow" in frames and "Your message is kept" in frames
    finally:
        await socket.disconnect()
    contents = await sync_to_async(lambda: list(conversation.messages.values_list("content", flat=True)))()
    assert contents == ["still there?"]


async def test_it_stops_a_reply_on_request(alice, llm_server, use_scripted_llm):
    conversation = await sync_to_async(Conversation.objects.create)(user=alice)
    llm_server.script(None, Delay(3, then="too late"))
    socket = chat_socket(alice, conversation.pk)
    assert (await socket.connect())[0]
    try:
        await socket.send_json_to({"action": "send", "text": "take your time"})
        await frames_until(socket, "pending-")
        await socket.send_json_to({"action": "stop"})
        frames = await frames_until(socket, 'hx-swap-oob="delete"')
        assert "too late" not in frames
    finally:
        await socket.disconnect()
    count = await sync_to_async(conversation.messages.count)()
    assert count == 1


async def test_it_answers_a_message_sent_while_the_last_reply_is_still_coming(alice, llm_server, use_scripted_llm):
    """Typing on while a reply streams or is being saved: the next message waits its turn, never dropped."""
    conversation = await sync_to_async(Conversation.objects.create)(user=alice)
    llm_server.script(None, Delay(1.5, then="First answer"), "Second answer")
    socket = chat_socket(alice, conversation.pk)
    assert (await socket.connect())[0]
    try:
        await socket.send_json_to({"action": "send", "text": "first question"})
        await frames_until(socket, "pending-")
        await socket.send_json_to({"action": "send", "text": "second question"})
        frames = await frames_until(socket, "Second answer")  # whole only in the saved reply's frame
        assert frames.index("First answer") < frames.index("second question") < frames.index("Second answer")
    finally:
        await socket.disconnect()
    said = await sync_to_async(lambda: list(conversation.messages.order_by("pk").values_list("role", "content")))()
    assert said == [
        ("user", "first question"),
        ("assistant", "First answer"),
        ("user", "second question"),
        ("assistant", "Second answer"),
    ]


async def test_it_answers_one_chat_while_many_others_wait_on_a_slow_model(alice, llm_server, use_scripted_llm):
    """More chats waiting on the model than the event loop's default pool has threads (min(32, cores + 4)):
    each waiting reply once held one of them, and a chat whose answer was ready waited for them all."""
    waiting = min(32, (os.cpu_count() or 1) + 4) + 1
    llm_server.script(None, *[Delay(12, then="Slow answer") for _ in range(waiting)], "Quick answer")
    sockets = []
    try:
        for _ in range(waiting):
            conversation = await sync_to_async(Conversation.objects.create)(user=alice)
            socket = chat_socket(alice, conversation.pk)
            assert (await socket.connect())[0]
            sockets.append(socket)
            await socket.send_json_to({"action": "send", "text": "take your time"})
            await frames_until(socket, "pending-")
        quick = await sync_to_async(Conversation.objects.create)(user=alice)
        socket = chat_socket(alice, quick.pk)
        assert (await socket.connect())[0]
        sockets.append(socket)
        await socket.send_json_to({"action": "send", "text": "and you?"})
        frames = await frames_until(socket, "Quick answer", timeout=9)  # the slow ones are still waiting
        assert "Slow answer" not in frames
        for slow in sockets[:-1]:  # then each slow one is answered too, and no reply is left running
            await frames_until(slow, "outerHTML:#pending-", timeout=60)
    finally:
        for socket in sockets:
            await socket.disconnect()
