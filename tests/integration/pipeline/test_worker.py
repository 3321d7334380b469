"""End to end on the real Celery worker (a subprocess) and the embedded Redis: messages in, memories out,
the new cards on the owner's websocket; the same window queued again changes nothing."""

from __future__ import annotations

import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.engine.llm.decisions import DECIDE_MARKER
from memoryapp.engine.memories import write
from memoryapp.models import Memory
from tasks.extraction import extract_messages
from tests.support.llm_server import Fail
from tests.support.sockets import app_socket

from .conftest import candidates, chat, decisions

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


INSERTED = 'hx-swap-oob="afterbegin:#memory-list"'  # a new card joins the open page's list


async def _frames_until(socket: WebsocketCommunicator, wanted: int, timeout: float = 90) -> list[str]:
    """Frames until `wanted` new cards have arrived (the worker loads its embedding model first)."""
    frames, deadline = [], time.monotonic() + timeout
    while sum(INSERTED in f for f in frames) < wanted:
        frames.append(await socket.receive_from(timeout=max(0.1, deadline - time.monotonic())))
    return frames


@pytest.fixture
def graph_model_refuses(session_llm_server):
    """Graph syncs of the new memories ask the same model server (when a worker serves the `graph` queue
    too); refusing those calls at once keeps a single worker free for extraction (docs/graph.md)."""
    previous = session_llm_server.default
    session_llm_server.default = lambda body: Fail(400)
    yield
    session_llm_server.default = previous


async def test_it_extracts_on_the_worker_and_tells_the_page(
    alice, celery_worker, session_llm_server, graph_model_refuses
):
    vue = await sync_to_async(
        lambda: write.add_memory(alice, "I like Vue 3 for frontend work", kind="preference").memory
    )()
    conversation, ids = await sync_to_async(chat)(
        alice, "I now prefer React for frontend work", "I drink green tea every morning"
    )
    session_llm_server.script(
        EXTRACT_MARKER,
        candidates(("I now prefer React for frontend work", "preference"), ("I drink green tea every morning", "fact")),
    )
    session_llm_server.script(DECIDE_MARKER, decisions(("UPDATE", vue.pk), ("ADD", None)))

    def pipeline_calls() -> int:  # the graph's own calls to the same server are not the pipeline's
        return sum(len(session_llm_server.chat_requests(m)) for m in (EXTRACT_MARKER, DECIDE_MARKER))

    calls_before = pipeline_calls()
    socket = app_socket("/ws/memories/", alice)
    assert (await socket.connect())[0]
    try:
        started = time.monotonic()
        result = extract_messages.delay(conversation.pk, ids)
        frames = await _frames_until(socket, wanted=2)
        summary = await sync_to_async(result.get)(timeout=30)
        elapsed = time.monotonic() - started

        inserted = "".join(f for f in frames if INSERTED in f)
        assert "I drink green tea every morning" in inserted and "I now prefer React for frontend work" in inserted
        assert any(f'id="memory-{vue.pk}"' in f and "Replaced" in f for f in frames)  # its card, marked replaced
        assert summary["status"] == "done" and summary["llm_calls"] == 2
        assert pipeline_calls() - calls_before == 2
        print(
            f"\n[pipeline] 5-turn-size batch on the worker: {summary['llm_calls']} model calls, "
            f"{summary['seconds']:.3f} s in the task, {elapsed:.2f} s queue-to-result"
        )

        again = await sync_to_async(extract_messages.delay(conversation.pk, ids).get)(timeout=30)
        assert again == summary and await socket.receive_nothing(timeout=1)
        current = await sync_to_async(
            lambda: sorted(
                Memory.objects.filter(user=alice, status="active", valid_until__isnull=True).values_list(
                    "content", flat=True
                )
            )
        )()
        assert current == ["I drink green tea every morning", "I now prefer React for frontend work"]
    finally:
        await socket.disconnect()


def _wait_for(check, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_it_reruns_a_failed_task_from_the_admin(
    alice, admin_client, celery_worker, session_llm_server, graph_model_refuses
):
    from memoryapp.pipeline.models import FailedTask

    conversation, ids = chat(alice, "I live in Porto")
    failed = FailedTask.objects.create(
        task_name="tasks.extraction.extract_messages",
        args=[conversation.pk, ids],
        error="ProviderError: the model was down",
    )
    session_llm_server.script(EXTRACT_MARKER, candidates(("I live in Porto", "fact")))

    response = admin_client.post(
        "/admin/pipeline/failedtask/", {"action": "rerun_selected", "_selected_action": [failed.pk]}, follow=True
    )

    assert response.status_code == 200 and b"Queued 1 task" in response.content
    assert _wait_for(lambda: Memory.objects.filter(user=alice, content="I live in Porto").exists())
    assert _wait_for(lambda: FailedTask.objects.get(pk=failed.pk).resolved_at is not None)


async def test_it_learns_from_the_fifth_user_turn_without_being_asked(
    alice, celery_worker, session_llm_server, graph_model_refuses
):
    from conversations.models import Message
    from memoryapp.engine.learning.extraction import on_user_turn

    conversation, _ids = await sync_to_async(chat)(alice)
    session_llm_server.script(EXTRACT_MARKER, candidates(("I am training for a marathon", "goal")))
    socket = app_socket("/ws/memories/", alice)
    assert (await socket.connect())[0]
    try:

        def turn(text: str) -> bool:  # what the chat does after saving a user message (autocommit here)
            Message.objects.create(conversation=conversation, role="user", content=text)
            return on_user_turn(conversation, extract_messages.delay_on_commit)

        queued = [
            await sync_to_async(turn)(t) for t in ["hi", "I am training for a marathon", "any tips?", "thanks", "bye"]
        ]
        assert queued == [False, False, False, False, True]
        frame = (await _frames_until(socket, wanted=1))[-1]
        assert "I am training for a marathon" in frame and 'data-kind="goal"' in frame
    finally:
        await socket.disconnect()
