"""`POST /api/memories/import/history`: a ChatGPT or Claude export uploaded by another program, learnt by a
real Celery worker with no model, polled at its Location, started from its preview, undone; only its owner
sees it; a file that is not an export is one sentence and nothing is kept."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client

from memoryapp.api.auth import create_token
from memoryapp.engine import jobs
from memoryapp.models import Memory, MemoryStatus
from memoryapp.pipeline.models import HistoryImport
from tasks.learning import learn_history
from tests.integration.api.conftest import sent_to_the_worker_without_a_model

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

EXPORTS = Path(__file__).parents[2] / "unit" / "engine" / "history_exports"


@pytest.fixture
def worker(worker_without_a_model) -> Iterator[None]:
    with sent_to_the_worker_without_a_model(jobs.Job.LEARN_HISTORY, learn_history):
        yield


def _client(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {create_token(user, 'history test')[1]}")


def _upload(client: Client, name: str, body: bytes, **fields):
    return client.post("/api/memories/import/history", {"export": _file(name, body), **fields})


def _file(name: str, body: bytes) -> io.BytesIO:
    handle = io.BytesIO(body)
    handle.name = name
    return handle


def _done(client: Client, location: str, timeout: float = 90) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(location).json()
        if answer["status"] in ("done", "failed"):
            return answer
        time.sleep(0.1)
    raise AssertionError(f"the import did not finish: {answer}")


def test_an_export_is_learnt_then_undone_and_only_its_owner_sees_it(alice, bob, worker):
    api = _client(alice)
    response = _upload(api, "conversations.json", (EXPORTS / "chatgpt_conversations.json").read_bytes())

    assert response.status_code == 202, response.content
    job = response.json()
    assert response["Location"] == f"/api/memories/import/history/{job['id']}"
    assert (job["format"], job["conversations"], job["total"]) == ("chatgpt", 3, 2)  # the archived one is left out
    job = _done(api, response["Location"])
    assert (job["status"], job["done"], job["error"]) == ("done", 2, ""), job
    learnt = {m["content"]: m for m in api.get("/api/memories").json()["items"]}
    assert Memory.objects.filter(user=alice, pk__in=job["memory_ids"]).count() == len(job["memory_ids"]) >= 2
    assert any("柏林" in text for text in learnt)  # the move of March 2025 is what holds now
    then = api.post(
        "/api/memories/search",
        {"query": "where do I live?", "at": "2024-01-01T00:00:00Z"},
        content_type="application/json",
    )
    chengdu = then.json()["items"][0]["memory"]
    assert "Chengdu" in chengdu["content"] and chengdu["valid_from"].startswith("2023-07-15")  # from when it was said
    assert _client(bob).get(response["Location"]).status_code == 404
    assert _client(bob).post(f"{response['Location']}/undo").status_code == 404

    undone = api.post(f"{response['Location']}/undo")
    assert undone.status_code == 200 and undone.json()["status"] == "undone"
    assert not Memory.objects.filter(user=alice, status=MemoryStatus.ACTIVE).exists()
    assert api.post(f"{response['Location']}/undo").status_code == 409


def test_a_preview_waits_and_starts_with_the_conversations_chosen(alice, worker):
    api = _client(alice)
    response = _upload(api, "claude.json", (EXPORTS / "claude_conversations.json").read_bytes(), start="false")
    assert response.status_code == 201 and response.json()["status"] == "preview"
    location = response["Location"]
    assert api.post(f"{location}/start", {"conversations": []}, content_type="application/json").status_code == 422
    started = api.post(f"{location}/start", {"since": "2025-01-01"}, content_type="application/json")
    assert started.status_code == 202, started.content
    job = _done(api, location)
    assert job["status"] == "done" and 0 < job["total"] < job["conversations"]
    assert api.post(f"{location}/start", {}, content_type="application/json").status_code == 409


def _zip(**members: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "name, body, words",
    [
        ("memories.json", b'{"memories": []}', "neither a ChatGPT nor a Claude export"),
        ("export.zip", _zip(**{"notes.txt": b"hello"}), "neither a ChatGPT nor a Claude export"),
        ("conversations.json", (EXPORTS / "chatgpt_conversations.json").read_bytes()[:700], "cut short"),
    ],
    ids=["wrong shape", "zip without conversations", "truncated"],
)
def test_a_file_that_cannot_be_read_is_one_sentence_and_nothing_is_kept(alice, name, body, words):
    response = _upload(_client(alice), name, body)
    assert response.status_code == 422, response.content
    assert words in response.json()["detail"] and response.json()["field"] == "export"
    assert not HistoryImport.objects.filter(user=alice).exists()


def test_the_wrong_format_is_refused(alice):
    body = (EXPORTS / "claude_conversations.json").read_bytes()
    response = _upload(_client(alice), "conversations.json", body, format="chatgpt")
    assert response.status_code == 422 and response.json()["field"] == "format"
    assert not HistoryImport.objects.filter(user=alice).exists()


def test_an_upload_without_a_file_says_so(alice):
    api = _client(alice)
    empty = api.generic(
        "POST", "/api/memories/import/history", b"--c637--\r\n", content_type="multipart/form-data; boundary=c637"
    )
    assert empty.status_code in (400, 422) and empty.json()["detail"], empty.content
    missing = api.post("/api/memories/import/history", {"format": "auto"})
    assert missing.status_code == 422 and "export" in str(missing.json()), missing.content
