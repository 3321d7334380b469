"""One websocket per browser tab for `memory.*` events: the memories page and the chat listen."""
from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from memoryapp.engine.snapshots import snapshot
from memoryapp.events import user_group
from memoryapp.models import Memory


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

    @database_sync_to_async
    def _memory(self, memory_id: int | None) -> dict:
        memory = Memory.objects.filter(pk=memory_id, user=self.scope["user"]).first() if memory_id else None
        return snapshot(memory) if memory is not None else {"id": memory_id}

    async def _forward(self, event: dict) -> None:
        memory = await self._memory(event["id"])
        await self.send_json({"event": event["type"], "memory": {**memory, "action": event["action"]},
                              "count": event["count"]})

    # One handler per event type: `memory.created` arrives at `memory_created`.
    memory_created = memory_updated = memory_deleted = memory_forgotten = memory_restored = _forward
    memory_purged = memory_batch = _forward
