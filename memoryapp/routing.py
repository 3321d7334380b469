from __future__ import annotations

from django.urls import path

from conversations.consumers import ChatConsumer
from memoryapp.web.consumers import MemoryEventsConsumer

websocket_urlpatterns = [
    path("ws/memories/", MemoryEventsConsumer.as_asgi()),
    path("ws/chat/<int:conversation_id>/", ChatConsumer.as_asgi()),
]
