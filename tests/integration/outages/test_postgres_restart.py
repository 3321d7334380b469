"""Postgres restarted under a running app: every session is cut; the next requests, websocket turns and
tasks succeed without anyone restarting the app, with pooled and with persistent connections (CONN_HEALTH_CHECKS).

This restarts the suite's own embedded Postgres (pg_ctl restart -m fast), so the test process proves it
recovers as well; it is skipped when DATABASE_URL points at a server the suite does not own.
"""

from __future__ import annotations

import os

import httpx
import pytest
from asgiref.sync import SyncToAsync
from celery import Celery
from django.conf import settings
from django.db import close_old_connections

from conversations.models import Conversation
from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.models import Memory
from tests.integration.pipeline.conftest import candidates
from tests.support.dedicated import restart_embedded_postgres

from .conftest import frames_until, start_web

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="the suite does not own that Postgres"),
]


@pytest.mark.parametrize("connections", [{"DB_CONN_MAX_AGE": "600"}, {}], ids=["persistent", "pooled"])
def test_it_answers_the_next_requests_after_a_postgres_restart(alice, stack, connections):
    # Persistent connections are checked before reuse; the pool (the default, DB_POOL_SIZE) checks each loan.
    stack.env.update(connections)
    stack.start_worker("worker", wait=False)
    start_web(stack)
    conversation = Conversation.objects.create(user=alice)
    session = stack.session_for(alice)
    stack.llm.script(None, "Before.", "After.")
    cookies = {"sessionid": session}

    with (
        httpx.Client(base_url=stack.url, cookies=cookies, timeout=30) as http,
        stack.socket(f"/ws/chat/{conversation.pk}/", session) as chat,
    ):
        assert http.get("/settings/memories").status_code == 200  # the web process holds a connection now
        chat.send('{"action": "send", "text": "before the restart"}')
        assert "Before." in frames_until(chat, "outerHTML:#pending-")

        restart_embedded_postgres(settings.VAR_DIR)

        # What Django does between requests, Channels around each database call and Celery between tasks;
        # here for the test's own threads: this one, and asgiref's, where earlier async tests' ORM calls ran.
        close_old_connections()
        SyncToAsync.single_thread_executor.submit(close_old_connections).result()
        _fresh_chat_threads()
        assert Conversation.objects.filter(pk=conversation.pk).exists()  # the test process is back too
        page = http.get("/settings/memories")
        assert page.status_code == 200, page.text[-2000:]
        assert http.get(f"/api/conversations/{conversation.pk}/messages").status_code == 200
        chat.send('{"action": "send", "text": "after the restart"}')
        assert "After." in frames_until(chat, "outerHTML:#pending-")

        # A task after the restart: the worker's connection recovers as well.
        stack.llm.script(EXTRACT_MARKER, candidates(("I am training for a marathon", "goal")))
        client = Celery(broker=stack.env["REDIS_URL"], backend=stack.env["REDIS_URL"], set_as_current=False)
        try:
            ids = list(conversation.messages.values_list("id", flat=True))
            summary = client.send_task("tasks.extraction.extract_messages", args=[conversation.pk, ids]).get(60)
        finally:
            client.close()

    assert summary["status"] == "done"
    assert list(conversation.messages.order_by("id").values_list("content", flat=True)) == [
        "before the restart",
        "Before.",
        "after the restart",
        "After.",
    ]
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["I am training for a marathon"]


def _fresh_chat_threads() -> None:
    """The chat consumer's thread pools in this test process (earlier tests ran chats in-process): their
    threads keep the connections the restart cut, so new threads replace them, as a restarted web process
    would have. The app's own web process recovers by itself above."""
    from conversations import consumers, streaming

    for module, name in ((consumers, "_turn_pool"), (streaming, "_pool")):
        pool = getattr(module, name)
        if pool is not None:
            pool.shutdown(wait=False)
            setattr(module, name, None)
