"""In-process websockets (Channels' WebsocketCommunicator) for consumer tests, signed in as `user`.

The user is set on the scope directly; the live-Daphne tests (test_isolation_live.py) go through the
session cookie instead.
"""

from __future__ import annotations

from channels.testing import WebsocketCommunicator

from memoryapp.asgi import application

ORIGIN = [(b"origin", b"http://localhost")]
REPLY_SAVED = "outerHTML:#pending-"  # the frame that swaps the streamed reply for the saved one


def app_socket(path: str, user=None) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, path, headers=ORIGIN)
    if user is not None:
        socket.scope["user"] = user
    return socket


def chat_socket(user, conversation_id: int) -> WebsocketCommunicator:
    return app_socket(f"/ws/chat/{conversation_id}/", user)


async def frames_until(socket: WebsocketCommunicator, needle: str, timeout: float = 20) -> str:
    """Every frame received until one contains `needle`, concatenated."""
    seen = ""
    while needle not in seen:
        seen += await socket.receive_from(timeout=timeout)
    return seen
