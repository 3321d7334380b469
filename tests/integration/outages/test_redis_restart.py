"""Redis restarted mid-chat (it is the broker, the channel layer and the cache).

The chat socket uses Redis only to count its tab as it opens and closes (engine/chat/chat_end.py; without Redis
it works uncounted) and carries on; the memory-events socket and every pooled
connection reconnect (settings.REDIS_RETRIES); the web process queues extraction through the restarted
broker and the worker, reconnected, runs it; the user loses no message and sees the memory arrive.
Were Redis down for longer than the retries, the events socket would close and the page reconnects
(chat.js, memories.js; htmx-ext-ws for the chat socket on 1006/1011/1012/1013).
"""

from __future__ import annotations

import re

import httpx
import pytest

from conversations.models import Conversation
from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.models import Memory, MemorySettings
from tests.integration.pipeline.conftest import candidates
from tests.support.dedicated import wait_until

from .conftest import frames_until, start_web

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_it_keeps_chatting_and_learning_across_a_redis_restart(alice, own_redis, stack):
    stack.start_worker("worker", wait=False)  # warms up while Daphne starts
    start_web(stack)
    MemorySettings.objects.create(user=alice, extract_every_n_turns=2)
    conversation = Conversation.objects.create(user=alice)
    stack.llm.script(None, "Noted.", "Good luck with it!")
    stack.llm.script(EXTRACT_MARKER, candidates(("I am training for a marathon", "goal")))
    session = stack.session_for(alice)
    wait_until(lambda: "ready" in stack.log("worker"), 90, "the worker being ready")

    with (
        stack.socket(f"/ws/chat/{conversation.pk}/", session) as chat,
        stack.socket("/ws/memories/", session) as events,
    ):
        chat.send('{"action": "send", "text": "I am training for a marathon"}')
        assert "Noted." in frames_until(chat, "outerHTML:#pending-")

        own_redis.restart()

        # The second user turn queues extraction through the restarted broker; the worker, reconnected,
        # runs it and publishes through the restarted channel layer to the socket that stayed open.
        chat.send('{"action": "send", "text": "Any tips for the last week?"}')
        assert "Good luck with it!" in frames_until(chat, "outerHTML:#pending-")
        assert "I am training for a marathon" in frames_until(events, "afterbegin:#memory-list", timeout=60)

        # The cache (the login limit) is on the restarted server too.
        with httpx.Client(base_url=stack.url) as http:
            page = http.get("/accounts/login/")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            wrong = http.post(
                "/accounts/login/", data={"username": "alice", "password": "wrong", "csrfmiddlewaretoken": token}
            )
            assert wrong.status_code == 200 and "correct username and password" in wrong.text

    assert list(conversation.messages.order_by("id").values_list("content", flat=True)) == [
        "I am training for a marathon",
        "Noted.",
        "Any tips for the last week?",
        "Good luck with it!",
    ]
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["I am training for a marathon"]
