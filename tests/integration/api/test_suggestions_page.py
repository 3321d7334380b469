"""Settings > Memories: pending suggestions (auto-extract off) confirmed or dismissed with plain POST forms."""

from __future__ import annotations

import pytest

from conversations.models import Conversation
from memoryapp.models import Memory, MemoryStatus
from memoryapp.pipeline.models import MemorySuggestion, SuggestionStatus

pytestmark = pytest.mark.django_db

PAGE = "/settings/memories"


def _suggest(user, content="Prefers window seats", kind="preference", **extra) -> MemorySuggestion:
    return MemorySuggestion.objects.create(
        user=user, content=content, kind=kind, importance=0.6, confidence=0.9, **extra
    )


def _confirm_url(s: MemorySuggestion) -> str:
    return f"/settings/memories/suggestions/{s.pk}/confirm"


def _dismiss_url(s: MemorySuggestion) -> str:
    return f"/settings/memories/suggestions/{s.pk}/dismiss"


def test_it_lists_pending_suggestions_with_buttons_and_conversation_link(alice_client, alice):
    conversation = Conversation.objects.create(user=alice, title="trip")
    suggestion = _suggest(alice, conversation=conversation)
    page = alice_client.get(PAGE).content.decode()
    assert 'id="suggestions"' in page and "Prefers window seats" in page
    assert _confirm_url(suggestion) in page and _dismiss_url(suggestion) in page
    assert f"/c/{conversation.pk}/" in page and "from conversation" in page


def test_it_hides_the_section_without_pending_suggestions(alice_client, alice, bob):
    _suggest(bob, "Bob's secret suggestion")
    _suggest(alice, "Already dismissed", status=SuggestionStatus.DISMISSED)
    page = alice_client.get(PAGE).content.decode()
    assert 'id="suggestions"' not in page
    assert "Bob&#x27;s secret suggestion" not in page and "Already dismissed" not in page


def test_it_confirms_a_suggestion_into_an_active_memory(alice_client, alice):
    suggestion = _suggest(alice)
    response = alice_client.post(_confirm_url(suggestion))
    assert response.status_code == 302 and response["Location"] == PAGE
    suggestion.refresh_from_db()
    assert suggestion.status == SuggestionStatus.CONFIRMED and suggestion.memory is not None
    memory = Memory.objects.get(user=alice)
    assert memory.content == "Prefers window seats" and memory.status == MemoryStatus.ACTIVE
    assert memory.pk == suggestion.memory_id
    page = alice_client.get(PAGE).content.decode()
    assert _confirm_url(suggestion) not in page and 'id="suggestions"' not in page
    assert "Suggestion saved as a memory." in page


def test_it_dismisses_a_suggestion_without_creating_a_memory(alice_client, alice):
    suggestion = _suggest(alice)
    response = alice_client.post(_dismiss_url(suggestion))
    assert response.status_code == 302
    suggestion.refresh_from_db()
    assert suggestion.status == SuggestionStatus.DISMISSED
    assert not Memory.objects.filter(user=alice).exists()
    page = alice_client.get(PAGE).content.decode()
    assert "Prefers window seats" not in page and "Suggestion dismissed." in page


def test_it_returns_404_for_an_already_decided_suggestion(alice_client, alice):
    suggestion = _suggest(alice, status=SuggestionStatus.DISMISSED)
    assert alice_client.post(_confirm_url(suggestion)).status_code == 404
    assert not Memory.objects.exists()


def test_it_rejects_get_on_the_confirm_url(alice_client, alice):
    suggestion = _suggest(alice)
    assert alice_client.get(_confirm_url(suggestion)).status_code == 405
    assert alice_client.get(_dismiss_url(suggestion)).status_code == 405
    suggestion.refresh_from_db()
    assert suggestion.status == SuggestionStatus.PENDING


def test_it_shows_an_engine_rejection_as_a_message_not_a_500(alice_client, alice):
    suggestion = _suggest(alice, content="   ")  # blank content: the engine's validation refuses it
    response = alice_client.post(_confirm_url(suggestion), follow=True)
    assert response.status_code == 200
    assert 'class="flash"' in response.content.decode() and "error" in response.content.decode()
    suggestion.refresh_from_db()
    assert suggestion.status == SuggestionStatus.PENDING
    assert not Memory.objects.exists()


def test_it_renders_the_section_in_chinese(alice_client, alice):
    _suggest(alice)
    page = alice_client.get(PAGE, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "建议" in page and "确认" in page and "忽略" in page
