"""One event path: every write reaches the user's channel group once, after commit; a bulk write once."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from memoryapp.engine.memories import bulk, imports, purge, write
from memoryapp.events import MemoryEventType, user_group
from memoryapp.models import Memory, MemoryEvent

pytestmark = pytest.mark.django_db(transaction=True)


async def _listen(user) -> tuple:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(user_group(user.pk), channel)
    return layer, channel


async def _received(layer, channel, timeout: float = 0.5) -> list[dict]:
    import asyncio

    messages = []
    while True:
        try:
            messages.append(await asyncio.wait_for(layer.receive(channel), timeout))
        except TimeoutError:
            return messages


async def test_it_sends_one_batch_event_with_its_count_for_an_import(alice):
    layer, channel = await _listen(alice)
    rows = [{"content": f"Imported fact number {n}", "kind": "fact"} for n in range(5)] + [
        {"content": "Imported fact number 0", "kind": "fact"}
    ]  # a duplicate: not written, not counted
    report = await sync_to_async(imports.import_memories)(alice, rows)
    assert report.imported == 5
    messages = await _received(layer, channel, timeout=3)
    batches = [m for m in messages if m["type"] == MemoryEventType.BATCH.value]
    assert batches == [{"type": MemoryEventType.BATCH.value, "id": None, "action": "imported", "count": 5}]


async def test_it_sends_each_write_once_after_commit(alice):
    layer, channel = await _listen(alice)
    memory = (await sync_to_async(write.add_memory)(alice, "I like green tea")).memory
    await sync_to_async(write.delete_memory)(memory)
    await sync_to_async(purge.purge_memory)(memory)
    messages = await _received(layer, channel, timeout=3)
    assert [(m["type"], m["id"]) for m in messages] == [
        (MemoryEventType.CREATED.value, memory.pk),
        (MemoryEventType.DELETED.value, memory.pk),
        (MemoryEventType.PURGED.value, memory.pk),
    ]
    assert all("content" not in m for m in messages)  # the words stay in the row, not on the layer


async def test_clear_all_and_its_undo_each_send_one_batch_event_with_the_count(alice, alice_client):
    """Clearing 4 memories from the memories page tells another open page once, not 4 times; so does the
    undo, which keeps a copy added meanwhile (3 restored). Each memory's history still records both."""
    add = sync_to_async(write.add_memory)
    memories = [
        (await add(alice, text)).memory
        for text in ("I like green tea", "I live in Lyon", "我养了一只猫", "I run every morning")
    ]
    layer, channel = await _listen(alice)

    await sync_to_async(alice_client.post)("/settings/memories/clear")
    assert await _received(layer, channel, timeout=3) == [
        {"type": MemoryEventType.BATCH.value, "id": None, "action": "deleted", "count": 4}
    ]

    again = (await add(alice, "I like green tea")).memory  # said again before the undo
    await sync_to_async(alice_client.post)("/settings/memories/clear/undo")
    assert await _received(layer, channel, timeout=3) == [
        {"type": MemoryEventType.CREATED.value, "id": again.pk, "action": "created", "count": 1},
        {"type": MemoryEventType.BATCH.value, "id": None, "action": "restored", "count": 3},
    ]

    statuses = await sync_to_async(lambda: dict(Memory.objects.filter(user=alice).values_list("pk", "status")))()
    assert [statuses[m.pk] for m in memories] == ["deleted", "active", "active", "active"]
    actions = await sync_to_async(
        lambda: list(
            MemoryEvent.objects.filter(memory_ref=memories[1].pk)
            .order_by("created_at", "id")
            .values_list("action", flat=True)
        )
    )()
    assert actions == ["created", "deleted", "restored"]


async def test_a_long_import_reports_its_progress_as_it_goes_then_one_batch_event_then_its_report(alice):
    layer, channel = await _listen(alice)
    rows = [{"content": f"Imported fact number {n}", "kind": "fact"} for n in range(bulk.BATCH * 2 + 10)]
    report = await sync_to_async(imports.import_memories)(alice, rows)
    messages = await _received(layer, channel, timeout=3)
    total = len(rows)
    assert [(m["type"], m.get("done"), m.get("count"), m.get("state")) for m in messages] == [
        (MemoryEventType.PROGRESS.value, bulk.BATCH, None, None),
        (MemoryEventType.PROGRESS.value, bulk.BATCH * 2, None, None),
        (MemoryEventType.PROGRESS.value, total, None, None),
        (MemoryEventType.BATCH.value, None, report.imported, None),
        (MemoryEventType.PROGRESS.value, total, None, "done"),
    ]  # the report, once the list can show them
    assert {m.get("total") for m in messages if m["type"] == MemoryEventType.PROGRESS.value} == {total}
    assert messages[-1]["imported"] == total and messages[-1]["duplicates"] == 0
