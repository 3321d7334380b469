"""Cues from a model (issue #33 item 1): in the extraction call itself, and from the cue job for memories
written without one, batched on the real worker with its progress on the user's open page."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings

from memoryapp.engine.learning import cues
from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.engine.llm.cues import CUE_MARKER
from memoryapp.engine.memories import imports, write
from memoryapp.models import Memory
from tasks.cues import queue_cues
from tasks.extraction import extract_messages
from tests.support.llm_server import Fail
from tests.support.sockets import app_socket, frames_until

from .conftest import chat

pytestmark = pytest.mark.integration

DOCKER = "Docker builds on the office network need HTTPS_PROXY set"
DOCKER_CUES = ["building or pulling Docker images", "docker compose up", "构建镜像"]


def _user_text(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def _asked_ids(request: dict) -> list[int]:
    """The memory ids a cue request lists ("7: [fact] ..." per line)."""
    return [int(n) for n in re.findall(r"^(\d+): \[", _user_text(request), re.MULTILINE)]


def _answer(ids: list[int]) -> str:
    return json.dumps({"memories": [{"id": pk, "cues": [f"situation {pk}", f"情境 {pk}"]} for pk in ids]})


def _import(user, count: int) -> list[int]:
    report = imports.import_memories(
        user, [{"content": f"Numbered fact {i} about the user's week"} for i in range(count)]
    )
    assert report.ok and report.imported == count
    return list(cues.waiting(user.pk).order_by("id").values_list("pk", flat=True))


@pytest.mark.django_db
def test_extraction_stores_the_cues_the_model_wrote_in_the_same_call(alice, llm_server, use_scripted_llm):
    conversation, ids = chat(alice, "Our Docker builds on the office network need HTTPS_PROXY set")
    llm_server.script(
        EXTRACT_MARKER,
        json.dumps(
            {
                "candidates": [
                    {
                        "content": DOCKER,
                        "kind": "lesson",
                        "importance": 0.7,
                        "confidence": 0.9,
                        "cues": [*DOCKER_CUES, "my password is hunter2"],
                    }
                ]
            }
        ),
    )

    result = extract_messages.apply(args=[conversation.pk, ids]).get()

    # One call: nothing near it to decide about, and the cues came in the extraction's answer.
    assert result["status"] == "done" and result["llm_calls"] == 1 == len(llm_server.chat_requests())
    assert "cues" in llm_server.chat_requests(EXTRACT_MARKER)[0]["messages"][0]["content"]
    memory = Memory.objects.get(user=alice)
    assert memory.cues == DOCKER_CUES  # the one holding a secret is dropped
    assert memory.cue_embedding is not None and memory.cues_written_at is not None
    assert not cues.waiting(alice.pk).exists()


@pytest.mark.django_db
def test_the_cue_job_asks_about_25_memories_a_call_and_only_the_owners(alice, bob, llm_server, use_scripted_llm):
    waiting = _import(alice, 30)
    _import(bob, 1)
    llm_server.script(CUE_MARKER, _answer(waiting[:25]), _answer(waiting[25:]))
    seen = []

    written = cues.write_missing_cues(alice.pk, progress=lambda done, total: seen.append((done, total)))

    asked = [_asked_ids(r) for r in llm_server.chat_requests(CUE_MARKER)]
    assert asked == [waiting[:25], waiting[25:]] and written == 30 and seen == [(25, 30), (30, 30)]
    first = Memory.objects.get(pk=waiting[0])
    assert first.cues == [f"situation {first.pk}", f"情境 {first.pk}"] and first.cue_embedding is not None
    assert not cues.waiting(alice.pk).exists() and cues.waiting(bob.pk).count() == 1
    assert cues.write_missing_cues(alice.pk) == 0 and len(llm_server.chat_requests(CUE_MARKER)) == 2  # nothing left


@pytest.mark.django_db
def test_a_memory_the_model_gave_no_cues_is_not_asked_about_again(alice, llm_server, use_scripted_llm):
    waiting = _import(alice, 2)
    llm_server.script(
        CUE_MARKER,
        json.dumps(
            {"memories": [{"id": waiting[0], "cues": ["a situation"]}, {"id": 999999, "cues": ["not in the batch"]}]}
        ),
    )
    assert cues.write_missing_cues(alice.pk) == 1
    assert Memory.objects.get(pk=waiting[1]).cues == [] and not cues.waiting(alice.pk).exists()


@pytest.mark.django_db
def test_without_a_model_nothing_waits_on_it(alice, use_offline_llm):
    _import(alice, 3)
    assert cues.write_missing_cues(alice.pk) == 0 and cues.waiting(alice.pk).count() == 3
    # Without a model a memory has the situation bank's cues, guessed, until a model writes its own.
    tea = write.add_memory(alice, "Likes green tea").memory
    assert tea.cues_inferred and tea.cues_written_at is None


@pytest.fixture
def graph_model_refuses(session_llm_server):
    previous = session_llm_server.default
    session_llm_server.default = lambda body: Fail(400)
    yield
    session_llm_server.default = previous


@pytest.mark.django_db(transaction=True)
async def test_the_beat_queues_the_cue_job_on_the_worker_and_the_page_shows_its_progress(
    alice, celery_worker, session_llm_server, graph_model_refuses
):
    waiting = await sync_to_async(_import)(alice, 21)
    session_llm_server.script(CUE_MARKER, _answer(waiting))
    socket = app_socket("/ws/memories/", alice)
    assert (await socket.connect())[0]
    try:
        await sync_to_async(queue_cues.delay)()
        frames = await frames_until(socket, "Writing cues: 21 of 21 memories", timeout=90)
        assert 'id="cue-status"' in frames
    finally:
        await socket.disconnect()
    asked = [_asked_ids(r) for r in session_llm_server.chat_requests(CUE_MARKER)]
    assert asked[-1] == waiting  # one call for all 21
    assert await sync_to_async(lambda: cues.waiting(alice.pk).count())() == 0


@pytest.mark.django_db
def test_manage_py_cues_runs_the_job_by_hand_and_says_when_there_is_no_model(
    alice, llm_server, use_scripted_llm, monkeypatch
):
    from io import StringIO

    from django.core.management import CommandError, call_command

    from memoryapp.providers.llm import reset_llm
    from tests.support.fixtures import configure_llm

    waiting = _import(alice, 3)
    llm_server.script(CUE_MARKER, _answer(waiting))
    out, bar = StringIO(), StringIO()
    call_command("cues", "--user", str(alice.pk), stdout=out, stderr=bar)
    assert "cues written for 3 memories" in out.getvalue() and "3/3" in bar.getvalue()
    configure_llm(monkeypatch, OPENAI_BASE_URL=None, OPENAI_API_KEY=None)
    reset_llm()
    with override_settings(INFER_CUES=False), pytest.raises(CommandError, match="no language model is configured"):
        call_command("cues")
