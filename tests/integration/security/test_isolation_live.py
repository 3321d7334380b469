"""Isolation over the wire (issue #9): alice's real session cookie against the live Daphne.

The websockets authenticate from the session cookie, so these go through Channels' auth
middleware and origin check exactly as a browser would, not through a preset test scope.
"""

from __future__ import annotations

import pytest
import websockets.sync.client as ws_client
from django.test import Client
from websockets.exceptions import ConnectionClosed, InvalidStatus

from conversations.models import Conversation
from memoryapp.engine.memories.write import add_memory

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def _connect(app_server, path: str, session: str | None):
    headers = {"Origin": app_server.url}
    if session:
        headers["Cookie"] = f"sessionid={session}"
    return ws_client.connect(app_server.url.replace("http", "ws") + path, additional_headers=headers, open_timeout=10)


def _refused(app_server, path: str, session: str | None) -> bool:
    """True when the socket is refused at the handshake or closed before any frame."""
    try:
        with _connect(app_server, path, session) as socket:
            socket.recv(timeout=5)
    except InvalidStatus as exc:
        return exc.response.status_code == 403
    except ConnectionClosed:
        return True
    return False


def test_the_chat_socket_refuses_another_users_conversation_and_strangers(app_server, alice, bob):
    bobs_chat = Conversation.objects.create(user=bob, title="bob's")
    alices_chat = Conversation.objects.create(user=alice, title="alice's")
    alice_session = _session_cookie(alice)

    assert _refused(app_server, f"/ws/chat/{bobs_chat.pk}/", alice_session)
    assert _refused(app_server, f"/ws/chat/{alices_chat.pk}/", None)
    assert _refused(app_server, f"/ws/chat/{alices_chat.pk}/", "not-a-session")
    with _connect(app_server, f"/ws/chat/{alices_chat.pk}/", alice_session) as socket:
        socket.ping().wait(5)  # her own chat opens: the refusals above are about ownership
    assert not bobs_chat.messages.exists()


def test_the_events_socket_tells_each_user_only_their_own_changes(app_server, alice, bob):
    assert _refused(app_server, "/ws/memories/", None)
    with (
        _connect(app_server, "/ws/memories/", _session_cookie(alice)) as alices,
        _connect(app_server, "/ws/memories/", _session_cookie(bob)) as bobs,
    ):
        alices.ping().wait(5)
        bobs.ping().wait(5)
        add_memory(bob, "Bob's private zebra plan")
        frame = bobs.recv(timeout=10)  # his card, rendered for his page
        assert "private zebra plan" in frame and 'hx-swap-oob="afterbegin:#memory-list"' in frame
        with pytest.raises(TimeoutError):
            alices.recv(timeout=1.5)
