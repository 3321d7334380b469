"""A second user's OAuth grant against everything the first user has: every route of the REST API, read
from its own OpenAPI schema, and every MCP tool and resource, listed by the SDK's client. bob connects an
app with both scopes; alice has memories (core, current, superseded, deleted), an open conflict, a chat, a
history import, an import job and a learning job, each with the word SECRET in it.

No answer may contain SECRET, every call naming one of alice's ids must answer "not found", and
afterwards all of alice's rows are as they were. The same walk with alice's own read-only grant: every
route but the reads answers 403, every writing tool refuses, nothing of hers changes.

The routes and tools are walked, not listed here, so a new one is probed as soon as it exists; a path
parameter, request body or tool argument this file does not know how to fill fails the test, naming it,
rather than being skipped.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from conversations.models import Conversation, Message
from memoryapp.engine.chat_state import store as chat_state
from memoryapp.engine.history import importing
from memoryapp.engine.memories import conflicts, write
from memoryapp.engine.recall.access import flush_access
from memoryapp.models import ChangeQuestion, EventAction, Lifecycle, Memory, MemoryEvent, MemoryStatus
from memoryapp.pipeline.models import HistoryImport, ImportJob, LearnJob, RunStatus
from tests.integration.mcp.client import session

from .flow import App, signed_in

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SECRET = "Quokkaberry"  # in every text of alice's; in no answer bob gets
WORKING_KEY = "destination"
CHATGPT_EXPORT = Path(__file__).parents[2] / "unit" / "engine" / "history_exports" / "chatgpt_conversations.json"


@dataclass
class Alices:
    memories: list[int]  # core, current, its older version, deleted, and the two in the conflict
    question: int
    conversation: int
    history: int
    import_job: int
    learn_job: int

    def ids(self, segment: str, parameter: str, path: str) -> list[int | str]:
        """Alice's ids for `{parameter}` where it follows `segment/` in `path`."""
        known: dict[tuple[str, str], list[int | str]] = {
            ("memories", "memory_id"): self.memories,
            ("conversations", "conversation_id"): [self.conversation],
            ("history", "history_id"): [self.history],
            ("conflicts", "question_id"): [self.question],
            ("import", "job_id"): [self.import_job],
            ("extract", "job_id"): [self.learn_job],
            ("working-memory", "key"): [WORKING_KEY],  # an entry of her chat's working memory
        }
        if (segment, parameter) not in known:
            pytest.fail(f"{path}: no id of alice's for {segment}/{{{parameter}}}; add one to Alices.ids")
        return known[(segment, parameter)]


@pytest.fixture
def alices(alice) -> Alices:
    core = write.add_memory(
        alice, f"{SECRET}: my sister lives in Porto", lifecycle=Lifecycle.CORE, importance=0.9
    ).memory
    older = write.add_memory(alice, f"{SECRET}: I plan a trip to Oslo in March", kind="goal").memory
    current = write.edit_memory(older, {"content": f"{SECRET}: I plan a trip to Oslo in April"}).memory
    deleted = write.delete_memory(write.add_memory(alice, f"{SECRET}: I once liked oolong tea").memory).memory
    lived = write.add_memory(alice, f"{SECRET} 我住在西安", kind="fact").memory
    moved = write.add_memory(alice, f"{SECRET} 我们上个月搬到武汉了", kind="fact").memory
    question = conflicts.ask(alice.pk, lived, moved)
    assert question is not None
    conversation = Conversation.objects.create(user=alice, title=f"{SECRET} trip planning")
    Message.objects.create(conversation=conversation, role="user", content=f"{SECRET}: book the Oslo ferry")
    chat_state.put(alice.pk, chat_state.chat_session(conversation.pk), {WORKING_KEY: f"{SECRET} Oslo"}, by="you")
    history = HistoryImport.objects.create(
        user=alice,
        format="chatgpt",
        name=f"{SECRET}-export.zip",
        rows=[["c-1", f"{SECRET} holiday", "2025-01-01T00:00:00+00:00", 1, 2, False, False, 100]],
        selected=["c-1"],
    )
    import_job = ImportJob.objects.create(
        user=alice, rows=[{"content": f"{SECRET}: imported note"}], total=1, status=RunStatus.DONE
    )
    learn_job = LearnJob.objects.create(
        user=alice,
        source=f"{SECRET} assistant",
        digest="0" * 64,
        messages=[{"role": "user", "content": f"{SECRET}: I keep bees", "created_at": "2025-01-01T00:00:00Z"}],
        total=1,
        status=RunStatus.DONE,
    )
    return Alices(
        memories=[core.pk, current.pk, older.pk, deleted.pk, lived.pk, moved.pk],
        question=question.pk,
        conversation=conversation.pk,
        history=history.pk,
        import_job=import_job.pk,
        learn_job=learn_job.pk,
    )


READ_EVENTS = (EventAction.ACCESSED, EventAction.EXPORTED)


def snapshot(user, *, reads: bool = True) -> dict:
    """Everything of alice's a leak through another account could change, her memories' reads included
    (another user's search must not count as her use): the reads noted so far are applied first. Without
    `reads`: what only a write changes (her own grant's reads and exports are recorded as hers)."""
    flush_access()
    events = MemoryEvent.objects.filter(user=user)
    fields = ["pk", "content", "status", "valid_until", "lifecycle", "kind", "importance"]
    return {
        "memories": sorted(Memory.objects.filter(user=user).values_list(*fields, *(["access_count"] if reads else []))),
        "events": sorted(
            (events if reads else events.exclude(action__in=READ_EVENTS)).values_list("pk", "action", "memory_id")
        ),
        "questions": sorted(ChangeQuestion.objects.filter(user=user).values_list("pk", "status")),
        "conversations": sorted(Conversation.objects.filter(user=user).values_list("pk", "title", "ended_at")),
        "messages": sorted(Message.objects.filter(conversation__user=user).values_list("pk", "content")),
        "history": sorted(HistoryImport.objects.filter(user=user).values_list("pk", "status", "done", "selected")),
        "imports": sorted(ImportJob.objects.filter(user=user).values_list("pk", "status", "done")),
        "learning": sorted(LearnJob.objects.filter(user=user).values_list("pk", "status", "done")),
        "working memory": sorted(
            (pk, entry.key, entry.value)
            for pk in Conversation.objects.filter(user=user).values_list("pk", flat=True)
            for entry in chat_state.entries(user.pk, chat_state.chat_session(pk))
        ),
    }


def token(url: str, user, resource: str, **overrides) -> str:
    return App.registered(url).tokens(signed_in(url, user), resource=url + resource, **overrides)["access_token"]


@pytest.fixture
def clean_bobs_uploads(bob) -> Iterator[None]:
    """bob's history upload is a preview with its file under the var directory: dropped after."""
    yield
    for job in HistoryImport.objects.filter(user=bob, status="preview"):
        importing.drop(job)


# --- REST -------------------------------------------------------------------------------------

# A valid body for each request schema (by its name in the OpenAPI components), as bob would send it. A body
# that is valid gets past ninja's checks to the route, where alice's id must be refused.
BODIES: dict[str, dict[str, Any]] = {
    "MemoryIn": {"content": "Bob waters the ferns on Sundays"},
    "MemoryPatchIn": {"content": "Bob was here"},
    "SearchIn": {"query": SECRET},
    "ImportIn": {"memories": [{"content": "Bob imported a note about ferns"}]},
    "ExtractIn": {"messages": [{"role": "user", "content": "I am Bob and I grow ferns"}]},
    "HistoryStartIn": {},
    "ResolveIn": {"answer": "replace"},
    "ConversationIn": {"title": "Bob's chat"},
    "RenameIn": {"title": "Bob was here"},
    "StateValueIn": {"value": "Bob's destination"},
    "MessageIn": {"content": "What do you remember?"},
}
MULTIPART: dict[str, dict[str, Any]] = {  # by the form's field names: multipart bodies have no schema name
    "export,format,start": {
        "files": {"export": ("conversations.json", CHATGPT_EXPORT.read_bytes(), "application/json")},
        "data": {"start": "false"},  # a preview: bob's own upload waits for him, and nothing is queued
    },
}
QUERY = {"q": SECRET}  # string query parameters that search, filled with alice's word


@dataclass
class Call:
    method: str
    path: str
    url: str
    owned_by_alice: bool  # the URL names one of alice's ids
    params: dict[str, str] = field(default_factory=dict)
    json: dict[str, Any] | None = None
    multipart: dict[str, Any] | None = None

    def send(self, client: httpx.Client) -> httpx.Response:
        if self.multipart is not None:
            return client.request(self.method, self.url, params=self.params, **self.multipart)
        return client.request(self.method, self.url, params=self.params, json=self.json)

    def __str__(self) -> str:
        return f"{self.method} {self.url} {self.params or ''} {json.dumps(self.json) if self.json else ''}".strip()


def resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def enum_values(schema: dict, node: dict) -> list:
    """The values an enumerated parameter or field takes (through $ref, anyOf, allOf); [] if it is not one."""
    node = resolve(schema, node)
    if "enum" in node:
        return list(node["enum"])
    return [value for part in node.get("anyOf", []) + node.get("allOf", []) for value in enum_values(schema, part)]


def variants(schema: dict, fields: dict[str, dict], base: dict) -> Iterator[dict]:
    """`base`, then `base` with each value of each enumerated field (a filter by status, a kind, a format)."""
    yield base
    for name, node in fields.items():
        for value in enum_values(schema, node):
            if base.get(name) != value:
                yield {**base, name: value}


def calls(schema: dict, alices: Alices) -> Iterator[Call]:
    for path, operations in schema["paths"].items():
        parameters = re.findall(r"([^/]+)/\{(\w+)\}", path)
        choices = [alices.ids(segment, name, path) for segment, name in parameters]
        for method, operation in operations.items():
            query_fields = {p["name"]: p["schema"] for p in operation.get("parameters", []) if p["in"] == "query"}
            searches = {name: value for name, value in QUERY.items() if name in query_fields}
            queries = [*variants(schema, query_fields, {}), *([searches] if searches else [])]
            bodies = list(request_bodies(schema, method, path, operation))
            for ids in itertools.product(*choices):
                url = path
                for (_segment, name), value in zip(parameters, ids, strict=True):
                    url = url.replace(f"{{{name}}}", str(value))
                for params in queries:
                    for body in bodies:
                        yield Call(method.upper(), path, url, bool(parameters), params=params, **body)


def request_bodies(schema: dict, method: str, path: str, operation: dict) -> Iterator[dict]:
    """The bodies to send: none, or the known valid one and its variants."""
    content = operation.get("requestBody", {}).get("content")
    if not content:
        yield {}
        return
    if "application/json" in content:
        node = content["application/json"]["schema"]
        name = node.get("$ref", "").rsplit("/", 1)[-1]
        if name not in BODIES:
            pytest.fail(f"{method.upper()} {path}: no body for {name or node}; add a valid one to BODIES")
        fields = resolve(schema, node).get("properties", {})
        for body in variants(schema, fields, BODIES[name]):
            yield {"json": body}
        return
    if "multipart/form-data" in content:
        key = ",".join(sorted(content["multipart/form-data"]["schema"].get("properties", {})))
        if key not in MULTIPART:
            pytest.fail(f"{method.upper()} {path}: no form for fields {key}; add one to MULTIPART")
        yield {"multipart": MULTIPART[key]}
        return
    pytest.fail(f"{method.upper()} {path}: a body of {sorted(content)}; teach request_bodies to send it")


def test_every_route_with_another_users_grant_shows_and_changes_nothing_of_alices(
    app_server, alice, bob, alices, clean_bobs_uploads
):
    before = snapshot(alice)
    api = httpx.Client(
        base_url=app_server.url,
        headers={"Authorization": f"Bearer {token(app_server.url, bob, '/api')}"},
        timeout=30,
    )
    schema = api.get("/api/openapi.json").json()

    probes = list(calls(schema, alices))
    answers = [(call, call.send(api)) for call in probes]

    assert len({(call.method, call.path) for call in probes}) >= 30  # the walk found the routes
    leaks = [str(call) for call, answer in answers if SECRET in answer.text]
    assert not leaks, f"alice's text in bob's answers: {leaks}"
    not_refused = [
        f"{call} -> {answer.status_code}"
        for call, answer in answers
        if call.owned_by_alice and answer.status_code != 404
    ]
    assert not not_refused, f"alice's ids not answered 404: {not_refused}"
    errors = [f"{call} -> {answer.status_code}" for call, answer in answers if answer.status_code >= 500]
    assert not errors, errors
    assert any(call.json == {"query": SECRET} for call, _ in answers)  # the search was probed with her word
    assert snapshot(alice) == before


# --- MCP --------------------------------------------------------------------------------------

# A valid value for each tool argument the probe passes (those a tool requires, and these whenever a tool takes
# them); alice's ids come from `mcp_ids`. A required argument not here fails the test.
ARGUMENTS: dict[str, Any] = {
    "query": SECRET,
    "content": "Bob waters the ferns on Sundays",
    "memories": [{"content": "Bob imported a note about ferns"}],
    "messages": [{"role": "user", "content": "I am Bob and I grow ferns"}],
    "answer": "replace",
    "confirm": True,  # purge_memory refuses before the lookup without it
    "key": WORKING_KEY,
    "value": "Bob's destination",
}


def mcp_ids(alices: Alices) -> dict[str, list[int]]:
    return {"memory_id": alices.memories, "conflict_id": [alices.question], "conversation_id": [alices.conversation]}


def tool_calls(tool, alices: Alices) -> Iterator[tuple[dict, bool]]:
    """(arguments, whether they name one of alice's ids) for each probe of `tool`."""
    properties = tool.input_schema.get("properties", {})
    ids = {name: values for name, values in mcp_ids(alices).items() if name in properties}
    unknown = [name for name in tool.input_schema.get("required", []) if name not in ARGUMENTS and name not in ids]
    if unknown:
        pytest.fail(f"tool {tool.name}: no value for its argument {unknown[0]!r}; add one to ARGUMENTS or mcp_ids")
    base = {name: value for name, value in ARGUMENTS.items() if name in properties}
    schema = {"components": {"schemas": tool.input_schema.get("$defs", {})}}
    for chosen in itertools.product(*ids.values()):
        named = dict(zip(ids, chosen, strict=True))
        for arguments in variants(schema, _local_refs(properties), {**base, **named}):
            yield arguments, bool(named)


def _local_refs(properties: dict) -> dict:
    """The tool's schema names its enums `#/$defs/...`; `resolve` reads them as components."""
    return json.loads(json.dumps(properties).replace('"#/$defs/', '"#/components/schemas/'))


def test_every_mcp_tool_and_resource_with_another_users_grant_shows_and_changes_nothing_of_alices(
    app_server, alice, bob, alices
):
    before = snapshot(alice)
    secret = token(app_server.url, bob, "/mcp")

    async def probe(client):
        answers = []
        for tool in (await client.list_tools()).tools:
            for arguments, owned in tool_calls(tool, alices):
                result = await client.call_tool(tool.name, arguments)
                text = " ".join(getattr(part, "text", "") for part in result.content)
                answers.append((f"{tool.name}({json.dumps(arguments)})", owned, result.is_error, text))
        for resource in (await client.list_resources()).resources:
            contents = (await client.read_resource(resource.uri)).contents
            answers.append((str(resource.uri), False, False, " ".join(getattr(c, "text", "") for c in contents)))
        templates = (await client.list_resource_templates()).resource_templates
        prompts = (await client.list_prompts()).prompts
        return answers, templates, prompts

    answers, templates, prompts = session(app_server.url, secret, probe)

    assert not templates and not prompts, "a resource template or prompt appeared: probe it here too"
    assert {"memory://core", "get_memory", "purge_memory", "resolve_conflict"} <= {a[0].split("(")[0] for a in answers}
    leaks = [name for name, _owned, _error, text in answers if SECRET in text]
    assert not leaks, f"alice's text in bob's answers: {leaks}"
    not_refused = [
        f"{name} -> {text}" for name, owned, error, text in answers if owned and not (error and "not found" in text)
    ]
    assert not not_refused, f"alice's ids not answered 'not found': {not_refused}"
    assert snapshot(alice) == before
    assert MemoryEvent.objects.filter(user=bob).exists()  # bob's own writes went through: the probe reached the tools
    assert Memory.objects.filter(user=bob, status=MemoryStatus.ACTIVE).exists()


# --- A read-only grant ------------------------------------------------------------------------

READS_SENT_AS_POST = {("POST", "/api/memories/search")}  # open to a read-only grant (memoryapp/api/auth.py)


def test_a_read_only_grant_walked_over_every_route_and_tool_changes_nothing(app_server, alice, alices):
    """alice's own grant without memories:write, with her own ids: every route that is not a read answers
    403, every tool that writes says the connection may only read, and nothing of hers changes."""
    before = snapshot(alice, reads=False)
    api = httpx.Client(
        base_url=app_server.url,
        headers={"Authorization": f"Bearer {token(app_server.url, alice, '/api', write=False)}"},
        timeout=30,
    )
    schema = api.get("/api/openapi.json").json()

    answers = [(call, call.send(api)) for call in calls(schema, alices)]

    writes = [(c, a) for c, a in answers if c.method != "GET" and (c.method, c.path) not in READS_SENT_AS_POST]
    not_refused = [
        f"{c} -> {a.status_code}" for c, a in writes if a.status_code != 403 or "may only read" not in a.text
    ]
    assert writes and not not_refused, f"a read-only grant not refused: {not_refused}"
    assert all(a.status_code < 400 for c, a in answers if (c.method, c.path) in READS_SENT_AS_POST)

    async def probe(client):
        results = []
        for tool in (await client.list_tools()).tools:
            for arguments, _owned in tool_calls(tool, alices):
                result = await client.call_tool(tool.name, arguments)
                results.append((tool.name, result.is_error, " ".join(getattr(p, "text", "") for p in result.content)))
        return results

    results = session(app_server.url, token(app_server.url, alice, "/mcp", write=False), probe)

    refused = {name for name, error, text in results if error and "this connection may only read" in text}
    assert {"add_memory", "update_memory", "delete_memory", "purge_memory", "resolve_conflict"} <= refused
    assert snapshot(alice, reads=False) == before
