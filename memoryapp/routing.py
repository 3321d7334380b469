from __future__ import annotations

from django.urls import path

from memoryapp.consumers import MemoryEventsConsumer

websocket_urlpatterns = [
    path("ws/memories/", MemoryEventsConsumer.as_asgi()),
]
