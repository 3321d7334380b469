"""GET /api/memories/conflicts and POST /api/memories/conflicts/{id}/resolve: the caller's own questions only."""

from __future__ import annotations

import pytest
from django.test import Client

from memoryapp.api.auth import create_token
from memoryapp.engine.memories import conflicts, write
from memoryapp.models import Memory

pytestmark = pytest.mark.django_db


@pytest.fixture
def question(alice):
    older = write.add_memory(alice, "我住在西安", kind="fact").memory
    newer = write.add_memory(alice, "我们上个月搬到武汉了", kind="fact").memory
    return conflicts.ask(alice.pk, older, newer)


def test_alice_lists_her_question_and_replaces(api, question):
    listed = api.get("/memories/conflicts").json()
    assert [(q["id"], q["older"]["content"], q["newer"]["content"], q["status"]) for q in listed] == [
        (question.pk, "我住在西安", "我们上个月搬到武汉了", "open")
    ]

    answered = api.post(f"/memories/conflicts/{question.pk}/resolve", {"answer": "replace"})

    assert answered.status_code == 200 and answered.json()["status"] == "replaced"
    assert Memory.objects.get(pk=question.older_id).valid_until is not None
    assert api.get("/memories/conflicts").json() == []
    again = api.post(f"/memories/conflicts/{question.pk}/resolve", {"answer": "keep"})
    assert again.status_code == 409 and "already answered" in again.json()["detail"]


def test_a_bad_answer_is_a_422(api, question):
    response = api.post(f"/memories/conflicts/{question.pk}/resolve", {"answer": "maybe"})
    assert response.status_code == 422


def test_bob_neither_sees_nor_answers_alices_question(client: Client, bob, question):
    token = create_token(bob, "bob")[1]
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}

    assert client.get("/api/memories/conflicts", **headers).json() == []
    response = client.post(
        f"/api/memories/conflicts/{question.pk}/resolve",
        data={"answer": "replace"},
        content_type="application/json",
        **headers,
    )
    assert response.status_code == 404
    assert Memory.objects.get(pk=question.older_id).valid_until is None
