"""Delete my account and all its data: the password first, then no row of the user's is left anywhere."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from conversations.models import Citation, Conversation, Message
from memoryapp.api.auth import create_token
from memoryapp.engine.memories import write
from memoryapp.models import MemorySettings
from memoryapp.pipeline.models import ExtractionRun, FailedTask, MemorySuggestion
from tests.conftest import PASSWORD
from tests.support.leaks import columns_holding, rows_pointing_at_user

pytestmark = pytest.mark.django_db

SECRET = "Zanzibar-quokka-8812 我的秘密"


@pytest.fixture
def carol(db):
    """A user with something in every kind of row: memories, chats, citations, runs, suggestions, tokens."""
    user = get_user_model().objects.create_user("carol-7q2w", email="carol-7q2w@example.org", password=PASSWORD)
    MemorySettings.for_user(user)
    create_token(user, "laptop")
    chat = Conversation.objects.create(user=user, title="Trip to Zanzibar")
    said = Message.objects.create(conversation=chat, role="user", content=f"remember: {SECRET}")
    memory = write.add_memory(user, SECRET, source_conversation_id=chat.pk, context=said.content).memory
    reply = Message.objects.create(conversation=chat, role="assistant", content="Noted, Zanzibar.")
    Citation.objects.create(message=reply, memory=memory, score=0.8, rank=1)
    ExtractionRun.objects.create(user=user, conversation=chat, key="carol-1", last_message_id=said.pk)
    MemorySuggestion.objects.create(
        user=user, content="Flies to Zanzibar in May", kind="goal", importance=0.5, confidence=0.7
    )
    FailedTask.objects.create(task_name="tasks.forgetting.forget_user", args=[user.pk], error="timeout")
    FailedTask.objects.create(task_name="tasks.extraction.extract_messages", args=[chat.pk], error="timeout")
    FailedTask.objects.create(
        task_name="tasks.chat_end.finish_chat", kwargs={"conversation_id": chat.pk}, error="timeout"
    )
    return user


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_it_refuses_a_wrong_password_with_a_visible_error(carol):
    client = _logged_in(carol)

    response = client.post("/settings/account/delete", {"password": "not it"})

    assert response.status_code == 400
    assert "That is not your password." in response.content.decode()
    assert get_user_model().objects.filter(pk=carol.pk).exists()


def test_it_removes_the_user_and_everything_of_theirs(carol, alice):
    user_id = carol.pk
    FailedTask.objects.create(task_name="tasks.forgetting.forget_user", args=[alice.pk], error="timeout")
    other_device = _logged_in(carol)
    client = _logged_in(carol)
    alices = write.add_memory(alice, "Alice keeps her own memory").memory
    assert "Delete my account and all its data" in client.get("/settings/").content.decode()

    response = client.post("/settings/account/delete", {"password": PASSWORD}, follow=True)

    assert response.redirect_chain[-1][0] == "/settings/account/deleted"
    assert "Your account was deleted" in response.content.decode()
    assert not get_user_model().objects.filter(pk=user_id).exists()
    assert rows_pointing_at_user(user_id) == []
    assert list(FailedTask.objects.values_list("args", flat=True)) == [[alice.pk]]  # only alice's stays
    assert columns_holding("carol-7q2w", "zanzibar", "秘密") == []
    assert not any(s.get_decoded().get("_auth_user_id") == str(user_id) for s in Session.objects.all())
    assert client.get("/settings/").status_code == 302  # logged out
    assert other_device.get("/settings/").status_code == 302  # everywhere
    assert type(alices).objects.filter(pk=alices.pk).exists()
