"""One websocket per browser tab for `memory.*` events: the memories page and the chat listen."""
from __future__ import annotations

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from memoryapp.events import user_group


class MemoryEventsConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def _forward(self, event: dict) -> None:
        await self.send_json({"event": event["type"], "memory": event["memory"]})

    # One handler per event type: `memory.created` arrives at `memory_created`.
    memory_created = _forward
    memory_updated = _forward
    memory_deleted = _forward
    memory_forgotten = _forward
    memory_restored = _forward
