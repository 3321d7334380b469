"""Every memories route, called with another user's id, answers 404 and changes nothing."""
from __future__ import annotations

import pytest

from memoryapp.engine.write import add_memory
from memoryapp.models import Memory

pytestmark = pytest.mark.django_db


@pytest.fixture
def bobs_memory(bob):
    return add_memory(bob, "Bob's secret plan", kind="goal").memory


@pytest.mark.parametrize("method,suffix,body", [
    ("get", "", None),
    ("patch", "", {"content": "hijacked"}),
    ("delete", "", None),
    ("post", "/restore", None),
    ("get", "/history", None),
])
def test_it_hides_another_users_memory(api, bobs_memory, method, suffix, body):
    response = getattr(api, method)(f"/memories/{bobs_memory.pk}{suffix}", body)
    assert response.status_code == 404
    assert response.json() == {"detail": f"memory {bobs_memory.pk} not found"}
    bobs_memory.refresh_from_db()
    assert (bobs_memory.content, bobs_memory.status) == ("Bob's secret plan", "active")


def test_it_keeps_other_users_out_of_lists_search_stats_and_export(api, bobs_memory):
    assert api.get("/memories").json()["items"] == []
    assert api.get("/memories?status=active&kind=goal").json()["items"] == []
    assert api.post("/memories/search", {"query": "secret plan"}).json()["items"] == []
    assert api.get("/memories/stats").json()["total"] == 0
    assert api.get("/memories/export").json()["memories"] == []
    assert "secret" not in api.get("/memories/export?format=markdown").content.decode()


def test_it_answers_404_for_ids_that_cannot_exist(api):
    assert api.get(f"/memories/{2**70}").status_code == 404
    assert Memory.objects.count() == 0


def test_it_hides_memories_on_the_page_too(client, alice, bobs_memory):
    client.force_login(alice)
    for url in ("card", "edit", "history"):
        assert client.get(f"/settings/memories/{bobs_memory.pk}/{url}").status_code == 404
    for url in ("delete", "restore"):
        assert client.post(f"/settings/memories/{bobs_memory.pk}/{url}").status_code == 404
    assert "secret plan" not in client.get("/settings/memories").content.decode()
