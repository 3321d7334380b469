"""The MCP server at /mcp (issue #32), with the SDK's own client over real HTTP against the live Daphne:
two users, each token seeing only its user's memories; bad arguments answered with readable errors."""

from __future__ import annotations

import httpx
import pytest

from memoryapp.api.auth import create_token, revoke_token
from memoryapp.models import EventAction, Memory, MemoryStatus

from .client import data, error, session

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TOOLS = {
    "search_memories",
    "add_memory",
    "list_memories",
    "get_memory",
    "update_memory",
    "delete_memory",
    "restore_memory",
    "purge_memory",
    "memory_history",
    "memory_stats",
    "export_memories",
    "import_memories",
    "learn_from_conversation",
    "list_conflicts",
    "resolve_conflict",
}


def test_a_round_trip_as_alice_that_bob_never_sees(app_server, alice, bob):
    alice_token, bob_token = create_token(alice, "claude")[1], create_token(bob, "cursor")[1]

    async def alices_session(client):
        names = {tool.name for tool in (await client.list_tools()).tools}
        added = data(
            await client.call_tool(
                "add_memory", {"content": "I moved from 北京 to 上海 in March", "kind": "fact", "lifecycle": "core"}
            )
        )
        found = data(await client.call_tool("search_memories", {"query": "上海"}))
        memory_id = added["memory"]["id"]
        deleted = data(await client.call_tool("delete_memory", {"memory_id": memory_id}))
        hidden = data(await client.call_tool("search_memories", {"query": "上海"}))
        restored = data(await client.call_tool("restore_memory", {"memory_id": memory_id}))
        history = data(await client.call_tool("memory_history", {"memory_id": memory_id}))
        export = data(await client.call_tool("export_memories", {"format": "json"}))
        core = (await client.read_resource("memory://core")).contents[0].text
        return names, added, found, deleted, hidden, restored, history, export, core

    names, added, found, deleted, hidden, restored, history, export, core = session(
        app_server.url, alice_token, alices_session
    )

    assert TOOLS <= names
    assert added["action"] == "created" and added["memory"]["content"] == "I moved from 北京 to 上海 in March"
    memory_id = added["memory"]["id"]
    assert [hit["memory"]["id"] for hit in found["items"]] == [memory_id]
    assert deleted["memory"]["status"] == "deleted" and hidden["items"] == []
    assert restored["action"] == "restored" and restored["memory"]["status"] == "active"
    assert [(e["action"], e["actor"]) for e in history["events"]] == [
        ("restored", "api"),
        ("deleted", "api"),
        ("created", "api"),
    ]  # audited like a REST write
    assert "上海" in export["content"] and export["filename"] == "memories.json"
    assert "上海" in core
    assert Memory.objects.get(pk=memory_id, user=alice).status == MemoryStatus.ACTIVE

    async def bobs_session(client):
        return (
            data(await client.call_tool("search_memories", {"query": "上海"})),
            data(await client.call_tool("list_memories", {})),
            error(await client.call_tool("get_memory", {"memory_id": memory_id})),
            error(await client.call_tool("delete_memory", {"memory_id": memory_id})),
            error(await client.call_tool("memory_history", {"memory_id": memory_id})),
            error(await client.call_tool("purge_memory", {"memory_id": memory_id, "confirm": True})),
            data(await client.call_tool("memory_stats", {})),
            data(await client.call_tool("export_memories", {})),
            (await client.read_resource("memory://core")).contents[0].text,
        )

    search, listing, *refusals, stats, export, core = session(app_server.url, bob_token, bobs_session)
    assert search["items"] == [] and listing["items"] == []
    assert all(refusal.endswith(f": memory {memory_id} not found") for refusal in refusals)  # as if it never existed
    assert stats["total"] == 0 and "上海" not in export["content"] and "上海" not in core
    assert Memory.objects.get(pk=memory_id).status == MemoryStatus.ACTIVE  # bob's delete did nothing


def test_without_a_valid_token_the_answer_is_401(app_server, alice):
    token, secret = create_token(alice, "revoked")
    revoke_token(alice, token.pk)
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    for authorization in (None, "Bearer mem_not-a-token", f"Bearer {secret}", "Basic YWxpY2U6cHc="):
        sent = {**headers, "Authorization": authorization} if authorization else headers
        answer = httpx.post(f"{app_server.url}/mcp", json=initialize, headers=sent, timeout=10)
        assert answer.status_code == 401, authorization
        assert answer.json()["detail"].startswith("a valid API token is needed")
        assert answer.headers["www-authenticate"].startswith("Bearer")


def test_bad_arguments_get_readable_errors_and_the_server_carries_on(app_server, alice):
    token = create_token(alice, "claude")[1]
    bad_calls = [
        ("search_memories", {}, "query"),
        ("search_memories", {"query": ""}, "query"),
        ("search_memories", {"query": "x", "limit": 500}, "limit"),
        ("search_memories", {"query": "x", "kinds": ["nope"]}, "kinds"),
        ("search_memories", {"query": "x", "since": "yesterday"}, "since: must be an ISO 8601 date and time"),
        ("search_memories", {"query": "x", "at": "2999-01-01T00:00:00Z"}, "at must not be in the future"),
        ("search_memories", {"query": "x", "method": "magic"}, "method"),
        ("add_memory", {"content": "   "}, "content is empty"),
        ("add_memory", {"content": "x", "importance": 2}, "importance"),
        ("add_memory", {"content": "nul \x00 byte"}, "NUL"),
        ("add_memory", {"content": "x", "colour": "red"}, "colour: unknown argument"),
        ("forget_everything", {}, "forget_everything"),
        ("list_memories", {"limit": 0}, "limit"),
        ("list_memories", {"cursor": "not-a-cursor"}, "cursor"),
        ("get_memory", {"memory_id": "seven"}, "memory_id"),
        ("get_memory", {"memory_id": 2**70}, "not found"),
        ("get_memory", {"memory_id": -1}, "not found"),
        ("update_memory", {"memory_id": 1, "importance": "high"}, "importance"),
        ("purge_memory", {"memory_id": 1}, "confirm=true"),
        ("import_memories", {"memories": []}, "no memories"),
        ("import_memories", {"memories": [{"content": ""}, "text"]}, "2 rows are invalid; nothing was imported"),
        ("export_memories", {"format": "pdf"}, "format"),
    ]

    async def work(client):
        answers = [(name, await client.call_tool(name, arguments), expected) for name, arguments, expected in bad_calls]
        still = data(await client.call_tool("add_memory", {"content": "the server still answers"}))
        return answers, still

    answers, still = session(app_server.url, token, work)
    for name, answer, expected in answers:
        message = error(answer)
        assert "Traceback" not in message and "errors.pydantic.dev" not in message, message
        assert len(message) < 400, message
        if expected:
            assert expected in message, (name, message)
    assert still["action"] == "created"
    assert not Memory.objects.filter(user=alice).exclude(content="the server still answers").exists()


def test_update_purge_import_and_stats(app_server, alice):
    token = create_token(alice, "claude")[1]

    async def work(client):
        first = data(await client.call_tool("add_memory", {"content": "I use Vue at work"}))
        memory_id = first["memory"]["id"]
        edited = data(
            await client.call_tool("update_memory", {"memory_id": memory_id, "content": "I use React at work"})
        )
        imported = data(
            await client.call_tool(
                "import_memories",
                {
                    "memories": [
                        {"content": "I drink tea, not coffee", "kind": "preference"},
                        {"content": "I use React at work"},
                    ]
                },
            )
        )
        stats = data(await client.call_tool("memory_stats", {}))
        purged = data(await client.call_tool("purge_memory", {"memory_id": edited["memory"]["id"], "confirm": True}))
        return memory_id, edited, imported, stats, purged

    memory_id, edited, imported, stats, purged = session(app_server.url, token, work)
    assert edited["action"] == "superseded" and edited["memory"]["content"] == "I use React at work"
    assert imported == {"imported": 1, "duplicates": 1}
    assert stats["total"] == 2 and stats["by_kind"]["preference"] == 1
    assert set(purged["purged"]) == {memory_id, edited["memory"]["id"]}  # with the version it replaced
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["I drink tea, not coffee"]
    assert Memory.objects.get(user=alice).events.filter(action=EventAction.IMPORTED).exists()


def test_a_client_gives_a_memory_cues_and_changes_them(app_server, alice):
    token = create_token(alice, "claude")[1]

    async def work(client):
        added = data(
            await client.call_tool(
                "add_memory",
                {"content": "Docker builds on the office network need HTTPS_PROXY", "cues": ["building Docker images"]},
            )
        )
        changed = data(
            await client.call_tool(
                "update_memory", {"memory_id": added["memory"]["id"], "cues": ["docker compose up", "构建镜像"]}
            )
        )
        refused = error(await client.call_tool("add_memory", {"content": "Likes tea", "cues": ["my bank PIN is 4821"]}))
        return added, changed, refused

    added, changed, refused = session(app_server.url, token, work)
    assert added["memory"]["cues"] == ["building Docker images"]
    assert changed["action"] == "updated" and changed["memory"]["cues"] == ["docker compose up", "构建镜像"]
    assert "cues looks like it holds a PIN" in refused


def test_a_client_lists_the_users_conflicts_and_answers_one(app_server, alice, bob):
    from memoryapp.engine.memories import conflicts
    from memoryapp.engine.memories.write import add_memory

    older = add_memory(alice, "I live in Leeds", kind="fact").memory
    newer = add_memory(alice, "We moved to Valencia in the summer", kind="fact").memory
    question = conflicts.ask(alice.pk, older, newer)

    async def alices(client):
        listed = data(await client.call_tool("list_conflicts", {}))
        answered = data(await client.call_tool("resolve_conflict", {"conflict_id": question.pk, "answer": "replace"}))
        return listed, answered

    async def bobs(client):
        return (
            data(await client.call_tool("list_conflicts", {})),
            error(await client.call_tool("resolve_conflict", {"conflict_id": question.pk, "answer": "keep"})),
        )

    bob_listed, bob_error = session(app_server.url, create_token(bob, "cursor")[1], bobs)
    listed, answered = session(app_server.url, create_token(alice, "claude")[1], alices)
    assert bob_listed == {"items": []} and "not found" in bob_error
    assert [(q["older"]["content"], q["newer"]["content"]) for q in listed["items"]] == [
        ("I live in Leeds", "We moved to Valencia in the summer")
    ]
    assert answered["status"] == "replaced"
    assert Memory.objects.get(pk=older.pk).valid_until is not None
