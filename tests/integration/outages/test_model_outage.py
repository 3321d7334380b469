"""The model endpoint down, slow, or answering garbage.

The chat (websocket and REST) says so, keeps the user's message, and answers it on retry once the model is
back; extraction records the failure and a later run of the same window succeeds, on the real worker too.
Real Postgres and Redis; the model is the scripted OpenAI-protocol server, or a port nobody listens on.

Covered elsewhere: bad JSON from the model during extraction (corrections, then a FailedTask, then a re-run)
in tests/integration/pipeline/test_extraction.py.
"""

from __future__ import annotations

import time

import pytest
from asgiref.sync import sync_to_async

from conversations.models import Conversation
from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.models import Memory
from memoryapp.pipeline.models import ExtractionRun, FailedTask
from memoryapp.providers.llm import reset_llm
from tasks.extraction import extract_messages
from tests.integration.pipeline.conftest import candidates, chat
from tests.support.fixtures import configure_llm
from tests.support.llm_server import Cut, Delay, Fail, Raw
from tests.support.processes import free_port
from tests.support.sockets import chat_socket, frames_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# What the model endpoint does, and a phrase of the detail the user is shown. The SDK retries a timeout
# and a 5xx once, so those are scripted twice.
OUTAGES = {
    "down": ([], "could not be reached"),
    "slow": ([Delay(3), Delay(3)], "did not answer within 1 s"),
    "http-500": ([Fail(500), Fail(500)], "answered HTTP 500"),
    "not-the-protocol": ([Raw("<html><h1>502 Bad Gateway</h1></html>")], "stopped before finishing"),
    "cut-off": ([Cut("The capital of France is Paris", after=3)], "stopped before finishing"),
    "empty": ([""], "empty reply"),
}


@pytest.fixture
def model(llm_server, monkeypatch):
    """Returns `break_it(case)`: the configured model misbehaves as OUTAGES[case] says (a 1 s timeout),
    until `mend()` points the app back at the healthy scripted server."""

    class Model:
        def break_it(self, case: str) -> None:
            responses, _detail = OUTAGES[case]
            url = f"http://127.0.0.1:{free_port()}/v1" if case == "down" else llm_server.url
            configure_llm(monkeypatch, OPENAI_BASE_URL=url, OPENAI_API_KEY="test-key", LLM_TIMEOUT_SECONDS="1")
            llm_server.script(None, *responses)
            reset_llm()

        def mend(self) -> None:
            configure_llm(monkeypatch, OPENAI_BASE_URL=llm_server.url, LLM_TIMEOUT_SECONDS="5")
            reset_llm()

    yield Model()
    reset_llm()


def _contents(conversation) -> list[tuple[str, str]]:
    return list(conversation.messages.order_by("id").values_list("role", "content"))


@pytest.mark.parametrize("case", list(OUTAGES))
async def test_it_tells_the_chat_keeps_the_message_and_answers_on_retry(case, alice, llm_server, model):
    conversation = await sync_to_async(Conversation.objects.create)(user=alice)
    model.break_it(case)
    socket = chat_socket(alice, conversation.pk)
    assert (await socket.connect())[0]
    try:
        started = time.monotonic()
        await socket.send_json_to({"action": "send", "text": "What is the capital of France?"})
        frames = await frames_until(socket, "Retry")
        assert time.monotonic() - started < 10  # the 1 s timeout, the SDK's one retry, no more
        assert 'role="alert"' in frames and "Your message is kept." in frames
        assert "The model is down or too slow to answer right now." in frames
        assert OUTAGES[case][1] in frames
        assert await sync_to_async(_contents)(conversation) == [("user", "What is the capital of France?")]

        model.mend()
        llm_server.script(None, "Paris.")
        await socket.send_json_to({"action": "retry"})
        frames = await frames_until(socket, "outerHTML:#pending-")
        assert "Paris." in frames
    finally:
        await socket.disconnect()
    assert await sync_to_async(_contents)(conversation) == [
        ("user", "What is the capital of France?"),
        ("assistant", "Paris."),
    ]  # no partial reply kept


@pytest.mark.parametrize(
    "case, detail", [("not-the-protocol", "is not an OpenAI-compatible reply"), ("cut-off", "is not valid JSON")]
)
def test_it_answers_502_over_rest_keeps_the_message_and_retries(case, detail, alice, alice_client, llm_server, model):
    conversation = Conversation.objects.create(user=alice)
    model.break_it(case)

    response = alice_client.post(
        f"/api/conversations/{conversation.pk}/messages",
        {"content": "What is the capital of France?"},
        content_type="application/json",
    )

    assert response.status_code == 502, response.content  # a 500 before: the SDK's raw text leaked through
    assert detail in response.json()["detail"]
    assert _contents(conversation) == [("user", "What is the capital of France?")]
    model.mend()
    llm_server.script(None, "Paris.")
    retried = alice_client.post(f"/api/conversations/{conversation.pk}/retry")
    assert retried.status_code == 201 and retried.json()["reply"]["content"] == "Paris."


@pytest.mark.parametrize("case", ["down", "slow", "http-500", "not-the-protocol", "cut-off"])
def test_it_records_a_failed_extraction_that_a_later_run_picks_up(case, alice, llm_server, model):
    conversation, ids = chat(alice, "I live in Lisbon")
    model.break_it(case)

    outcome = extract_messages.apply(args=[conversation.pk, ids], retries=4)  # its last retry: it gives up

    assert outcome.failed()
    run = ExtractionRun.objects.get(conversation=conversation)
    failure = FailedTask.objects.get(task_name="tasks.extraction.extract_messages", resolved_at__isnull=True)
    assert run.status == "failed" and run.error.startswith("The language model at")
    assert failure.args == [conversation.pk, ids] and "ProviderError" in failure.error
    assert not Memory.objects.filter(user=alice).exists()

    model.mend()
    llm_server.script(EXTRACT_MARKER, candidates(("I live in Lisbon", "fact")))
    assert extract_messages.apply(args=failure.args).get()["status"] == "done"
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["I live in Lisbon"]
    failure.refresh_from_db()
    run.refresh_from_db()
    assert failure.resolved_at is not None and run.status == "done" and run.attempts == 2


def test_it_retries_extraction_on_the_worker_by_itself_once_the_model_is_back(alice, celery_worker, session_llm_server):
    conversation, ids = chat(alice, "I am learning Portuguese")
    # The first attempt meets a model that is down (the SDK tries twice); the task's own retry, 5 s later,
    # finds it back.
    session_llm_server.script(EXTRACT_MARKER, Fail(503), Fail(503), candidates(("I am learning Portuguese", "goal")))

    summary = extract_messages.delay(conversation.pk, ids).get(timeout=60)

    assert summary["status"] == "done" and summary["applied"] == {"ADD": 1}
    run = ExtractionRun.objects.get(conversation=conversation)
    assert run.attempts == 2 and run.error == ""
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["I am learning Portuguese"]
    assert not FailedTask.objects.filter(args=[conversation.pk, ids], resolved_at__isnull=True).exists()
