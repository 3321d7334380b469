"""An import through the API is a job the real Celery worker writes: 202 with the job, polled until done,
all rows or none, and only its owner can see it."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from memoryapp.api.auth import create_token
from memoryapp.engine.memories import bulk
from memoryapp.models import Memory, MemoryEvent

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _client(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {create_token(user, 'import test')[1]}")


def _poll(client: Client, location: str, timeout: float = 90) -> list[dict]:
    """Every answer of the job until it is done or failed."""
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(location)
        assert answer.status_code == 200, answer.content
        seen.append(answer.json())
        if seen[-1]["status"] in ("done", "failed"):
            return seen
        time.sleep(0.05)
    raise AssertionError(f"the import job did not finish: {seen[-1]}")


def test_a_long_import_is_a_job_that_shows_its_progress_then_writes_every_row(alice, bob, celery_worker):
    rows = [{"content": f"Imported fact number {n}", "kind": "fact"} for n in range(bulk.BATCH * 4 + 10)]
    api = _client(alice)
    response = api.post("/api/memories/import", {"memories": rows}, content_type="application/json")

    assert response.status_code == 202, response.content
    job = response.json()
    assert response["Location"] == f"/api/memories/import/{job['id']}"
    assert (job["status"], job["total"], job["done"]) == ("queued", len(rows), 0)
    answers = _poll(api, response["Location"])

    assert answers[-1]["status"] == "done", answers[-1]
    assert (answers[-1]["done"], answers[-1]["imported"], answers[-1]["duplicates"]) == (len(rows), len(rows), 0)
    # Progress came while the job ran, before its one commit.
    assert any(a["status"] == "running" and 0 < a["done"] < len(rows) for a in answers), answers
    assert Memory.objects.filter(user=alice, source="imported").count() == len(rows)
    assert MemoryEvent.objects.filter(user=alice, action="imported", actor="api").count() == len(rows)
    # Another user's job is missing, like one that never existed.
    assert _client(bob).get(response["Location"]).status_code == 404
    assert api.get("/api/memories/import/999999").status_code == 404


def test_a_bad_row_queues_nothing_and_writes_nothing(alice, celery_worker):
    rows = [{"content": f"Fine fact {n}"} for n in range(300)] + [{"content": "Bad kind", "kind": "opinion"}]
    response = _client(alice).post("/api/memories/import", {"memories": rows}, content_type="application/json")

    assert response.status_code == 422
    assert [(e["row"], e["field"]) for e in response.json()["errors"]] == [(301, "kind")]
    assert "Location" not in response
    time.sleep(1)  # a queued job would have written by now
    assert not Memory.objects.filter(user=alice).exists()
