"""The graph (FalkorDB) down during a chat turn: recall answers from Postgres alone, says so in the log,
and the reply still cites the memory.

Covered elsewhere (tests/integration/graph/test_graphiti_outage.py): the graph raising GraphUnavailable
quickly for a closed port and within its budget when slow, writes never failing, and pending syncs draining
once a (dedicated, stopped and restarted) FalkorDB is back.
"""

from __future__ import annotations

import logging
import time

import pytest
from asgiref.sync import sync_to_async

from conversations.models import Citation, Conversation
from memoryapp.engine.memories import write
from memoryapp.engine.recall.recall import recall
from memoryapp.engine.recall.recipes import RECALL_CHAT
from memoryapp.graph import reset_graph
from tests.support.processes import free_port
from tests.support.sockets import chat_socket

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def graph_down(settings):
    settings.GRAPH_BACKEND = "graphiti"
    settings.GRAPH_RECALL = "on"  # recall asks the graph (by default only one a model built)
    settings.FALKORDB_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    reset_graph()
    yield
    reset_graph()


async def test_it_cites_the_postgres_memory_when_the_graph_is_down(
    alice, llm_server, use_scripted_llm, graph_down, caplog
):
    memory = await sync_to_async(lambda: write.add_memory(alice, "I am allergic to peanuts", kind="fact").memory)()
    conversation = await sync_to_async(Conversation.objects.create)(user=alice)
    llm_server.script(None, "Better skip the satay sauce then [1].")  # marks the memory it used
    socket = chat_socket(alice, conversation.pk)
    assert (await socket.connect())[0]
    try:
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="memoryapp.engine.recall.recall"):
            await socket.send_json_to({"action": "send", "text": "Is satay sauce with peanuts fine for me?"})
            frames = ""
            while "outerHTML:#pending-" not in frames:
                frames += await socket.receive_from(timeout=20)
        elapsed = time.monotonic() - started
    finally:
        await socket.disconnect()

    assert "Better skip the satay sauce then" in frames
    assert "Based on memory:" in frames and "I am allergic to peanuts" in frames
    cited = await sync_to_async(
        lambda: list(Citation.objects.filter(message__conversation=conversation).values_list("memory_id", flat=True))
    )()
    assert cited == [memory.pk]
    prompt = str(llm_server.chat_requests()[-1]["messages"])
    assert "I am allergic to peanuts" in prompt  # the model was given the memory
    assert "answering from Postgres alone" in caplog.text
    assert elapsed < 10  # the graph's failure is quick, not a timeout per turn

    results = await sync_to_async(recall)(alice, "peanuts", config=RECALL_CHAT)
    assert results.degraded and [item.memory.pk for item in results.items] == [memory.pk]
