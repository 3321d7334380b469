"""Every MCP tool that reads or writes a memory leaves a record naming the token or app it came through,
as the REST routes do (tests/integration/api/test_program_records.py)."""

from __future__ import annotations

import time

import pytest

from memoryapp.api.auth import create_token
from memoryapp.engine.memories import write
from memoryapp.engine.recall import access
from memoryapp.lib import clients
from memoryapp.models import EventAction, Lifecycle, MemoryEvent

from .client import data, session

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _tally(memory_id: int, expected: dict[str, int], timeout: float = 10) -> tuple[set[str], dict[str, int]]:
    """The programs and summed uses and reads on the memory's read records, once the server process's notes
    reached Redis and were flushed (or the time ran out)."""
    deadline = time.monotonic() + timeout
    while True:
        access.flush_access()
        records = list(MemoryEvent.objects.filter(memory_ref=memory_id, action=EventAction.ACCESSED))
        tally = {kind: sum(r.after.get(kind, 0) for r in records) for kind in expected}
        if tally == expected or time.monotonic() > deadline:
            return {r.client for r in records}, tally
        time.sleep(0.1)


def test_tools_and_the_core_resource_record_the_token(app_server, alice):
    token, secret = create_token(alice, "Claude Desktop")
    core = write.add_memory(alice, "I am vegetarian", kind="preference", lifecycle=Lifecycle.CORE).memory
    access.flush_access()

    async def work(client):
        added = data(await client.call_tool("add_memory", {"content": "My flight to Lisbon leaves on 3 May"}))
        memory_id = added["memory"]["id"]
        await client.call_tool("search_memories", {"query": "Lisbon flight"})
        await client.call_tool("get_memory", {"memory_id": memory_id})
        await client.call_tool("list_memories", {})
        await client.call_tool("memory_history", {"memory_id": memory_id})
        await client.read_resource("memory://core")
        return memory_id

    memory_id = session(app_server.url, secret, work)
    key = clients.token_client(token.pk)

    assert MemoryEvent.objects.get(memory_ref=memory_id, action=EventAction.CREATED).client == key
    assert _tally(memory_id, {"uses": 2, "reads": 2}) == (
        {key},
        {"uses": 2, "reads": 2},
    )  # search + get; list + history
    assert _tally(core.pk, {"uses": 1}) == ({key}, {"uses": 1})  # handed over as a core memory
