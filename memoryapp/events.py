"""Publishing `memory.*` events to a user's channel group, after the transaction commits."""
from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

EVENT_TYPES = ("memory.created", "memory.updated", "memory.deleted", "memory.forgotten", "memory.restored")


def user_group(user_id: int) -> str:
    # Channels group names: ASCII letters, digits, '-_.', under 100 characters.
    return f"user-{user_id}.memories"


def publish(user_id: int, event_type: str, payload: dict) -> None:
    """Send after commit, so listeners never see a change that was rolled back."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown memory event {event_type!r}")

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(user_group(user_id), {"type": event_type, "memory": payload})

    transaction.on_commit(send)
