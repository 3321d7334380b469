"""What an MCP client can do with the token user's memories: one tool per REST memory route, and the
core memories as a resource. Each tool is the REST route's body: the same schemas check the input, the
same engine function does the work (memoryapp/api/routes.py); writes go through the engine's write path, so
they are audited, appear live on the memories page and count against the API write limit."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from conversations.models import Conversation
from memoryapp.api.schemas import (
    ConflictOut,
    DateTimeIn,
    EventOut,
    ExtractIn,
    ImportIn,
    Kind,
    MemoryIn,
    ResolveIn,
    SearchIn,
    Source,
    StatusName,
)
from memoryapp.engine.chat_state import store
from memoryapp.engine.errors import MemoryNotFound
from memoryapp.engine.learning import turns
from memoryapp.engine.memories import conflicts, imports, listing, purge, transfer, write
from memoryapp.engine.memories.validation import MemoryPatch
from memoryapp.engine.recall import access
from memoryapp.engine.recall.recipes import SearchMethod
from memoryapp.models import Actor, Lifecycle
from memoryapp.providers.llm import ProviderError

from .calls import memory_of, memory_out, run, written
from .server import CORE_URI, CoreMemories, MemoryServer

MAX_ROW_ERRORS_SHOWN = 5

server = MemoryServer(
    "memoryapp",
    instructions=(
        "The user's long-term memory. Search it before answering about the user; add a memory when "
        "the user asks you to remember something. Deleting is undoable (restore_memory); "
        "purge_memory is not."
    ),
    log_level="WARNING",
)

MemoryId = Annotated[int, Field(description="the memory's id, as search_memories or list_memories give it")]
When = Annotated[DateTimeIn | None, Field(description="ISO 8601 date and time, e.g. 2026-03-15T12:00:00Z")]


@server.tool(
    description="Search the memories: hybrid (meaning, words, graph), keyword or vector; best first. "
    "Filter by kinds, by when they were learnt (since/until), or ask what was true at a "
    "moment (at)."
)
async def search_memories(
    ctx: Context,
    query: str,
    kinds: list[Kind] | None = None,
    status: StatusName = StatusName.ACTIVE,
    since: When = None,
    until: When = None,
    at: When = None,
    method: SearchMethod = SearchMethod.HYBRID,
    limit: Annotated[int, Field(description="1 to 50")] = 20,
) -> dict[str, Any]:
    def work(user) -> dict:
        payload = SearchIn.model_validate(
            {
                "query": query,
                "kinds": kinds or [],
                "status": status,
                "since": since,
                "until": until,
                "at": at,
                "method": method,
                "limit": limit,
            }
        )
        flt = listing.MemoryFilter(
            q=payload.query,
            kinds=tuple(payload.kinds),
            status=payload.status,
            since=payload.since,
            until=payload.until,
            at=payload.at,
            method=payload.method,
        )
        page = listing.list_memories(user, flt, limit=payload.limit)
        access.note_access([m.pk for m in page.memories])
        return {"items": [{"score": page.scores.get(m.pk, 0.0), "memory": memory_out(m)} for m in page.memories]}

    return await run(ctx, work)


CUES_HELP = (
    'short situations or questions in which the memory would help ("building Docker images"), in the '
    "user's language and English; searched beside the content. Left out: a model writes them later"
)


@server.tool(
    description="Remember this: add a memory. A near-duplicate of a current memory is merged into it (action 'merged')."
)
async def add_memory(
    ctx: Context,
    content: str,
    kind: Kind = Kind.FACT,
    importance: Annotated[float, Field(description="0 to 1")] = 0.5,
    confidence: Annotated[float, Field(description="0 to 1")] = 0.8,
    lifecycle: Lifecycle = Lifecycle.WORKING,
    cues: Annotated[list[str] | None, Field(description=CUES_HELP)] = None,
) -> dict[str, Any]:
    def work(user) -> dict:
        payload = MemoryIn.model_validate(
            {
                "content": content,
                "kind": kind,
                "importance": importance,
                "confidence": confidence,
                "lifecycle": lifecycle,
                "cues": cues or [],
            }
        )
        return written(write.add_memory(user, **payload.dict(), actor=Actor.API))

    return await run(ctx, work, write=True)


@server.tool(description="List memories, newest first, one page at a time (pass next_cursor back as cursor).")
async def list_memories(
    ctx: Context,
    kind: Kind | None = None,
    status: StatusName = StatusName.ACTIVE,
    source: Source | None = None,
    since: When = None,
    until: When = None,
    at: When = None,
    cursor: str | None = None,
    limit: Annotated[int, Field(ge=1, le=listing.MAX_PAGE_SIZE)] = 20,
) -> dict[str, Any]:
    def work(user) -> dict:
        flt = listing.MemoryFilter(kind=kind or "", status=status, source=source or "", since=since, until=until, at=at)
        page = listing.list_memories(user, flt, cursor=cursor, limit=limit)
        access.note_reads([m.pk for m in page.memories])
        return {"items": [memory_out(m) for m in page.memories], "next_cursor": page.next_cursor}

    return await run(ctx, work)


@server.tool(description="One memory by id, with what replaced it if it is an older version.")
async def get_memory(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
    def work(user) -> dict:
        memory = memory_of(user, memory_id)
        access.note_access([memory.pk])
        return memory_out(memory)

    return await run(ctx, work)


@server.tool(
    description="Edit a memory: any of content, kind, importance, lifecycle, cues. A new content supersedes "
    "it (the old wording stays in its history and the memories page can undo it)."
)
async def update_memory(
    ctx: Context,
    memory_id: MemoryId,
    content: str | None = None,
    kind: Kind | None = None,
    importance: float | None = None,
    lifecycle: Lifecycle | None = None,
    cues: Annotated[list[str] | None, Field(description=CUES_HELP)] = None,
) -> dict[str, Any]:
    changes = {
        name: value
        for name, value in (
            ("content", content),
            ("kind", kind),
            ("importance", importance),
            ("lifecycle", lifecycle),
            ("cues", cues),
        )
        if value is not None
    }

    def work(user) -> dict:
        MemoryPatch.model_validate(changes)  # the input's errors before the id's, as over REST
        return written(write.edit_memory(memory_of(user, memory_id), changes, actor=Actor.API))

    return await run(ctx, work, write=True)


@server.tool(description="Delete a memory (soft: restore_memory brings it back).")
async def delete_memory(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
    return await run(
        ctx, lambda user: written(write.delete_memory(memory_of(user, memory_id), actor=Actor.API)), write=True
    )


@server.tool(description="Restore a deleted or forgotten memory.")
async def restore_memory(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
    return await run(
        ctx, lambda user: written(write.restore_memory(memory_of(user, memory_id), actor=Actor.API)), write=True
    )


@server.tool(
    description="Delete a memory FOREVER, with its earlier and later versions: it cannot be restored. "
    "Only with confirm=true, after the user asked for exactly this."
)
async def purge_memory(
    ctx: Context,
    memory_id: MemoryId,
    confirm: Annotated[bool, Field(description="true: yes, delete it forever")] = False,
) -> dict[str, Any]:
    if confirm is not True:
        raise ToolError(
            "purge_memory deletes forever and cannot be undone: call it again with confirm=true "
            "if the user asked for that, or use delete_memory, which can be undone"
        )
    return await run(
        ctx, lambda user: {"purged": purge.purge_memory(memory_of(user, memory_id), actor=Actor.API)}, write=True
    )


@server.tool(description="The change log of a memory and of the versions it replaced, newest first.")
async def memory_history(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
    def work(user) -> dict:
        memory = memory_of(user, memory_id)
        events = listing.history(user, memory)
        access.note_reads([memory.pk])
        return {"events": [EventOut.from_orm(e).model_dump(mode="json") for e in events]}

    return await run(ctx, work)


@server.tool(description="How many memories there are, by kind (current ones) and by status.")
async def memory_stats(ctx: Context) -> dict[str, Any]:
    return await run(ctx, listing.stats)


@server.tool(
    description="Export the memories: JSON (to import elsewhere, or here with import_memories) or Markdown (to read)."
)
async def export_memories(ctx: Context, format: Literal["json", "markdown"] = "json") -> dict[str, Any]:
    def work(user) -> dict:
        file = transfer.export_file(user, format, actor=Actor.API)
        return {"filename": file.filename, "content_type": file.content_type, "content": file.body}

    return await run(ctx, work)


@server.tool(
    description="Import memories: the 'memories' list of a JSON export. All rows or, if any row is "
    "bad, none; exact duplicates of current memories are skipped."
)
async def import_memories(ctx: Context, memories: list[Any]) -> dict[str, Any]:
    def work(user) -> dict:
        payload = ImportIn.model_validate({"memories": memories})
        # The import job, run here: the tool answers once the rows are written (all or none).
        report = imports.import_memories(user, {"memories": payload.memories}, actor=Actor.API)
        if not report.ok:
            shown = "; ".join(f"row {e.row}: {e.reason}" for e in report.errors[:MAX_ROW_ERRORS_SHOWN])
            raise ToolError(f"{len(report.errors)} rows are invalid; nothing was imported ({shown})")
        return {"imported": report.imported, "duplicates": report.duplicates}

    return await run(ctx, work, write=True)


LEARNT_FIELDS = ("id", "status", "done", "total", "created", "superseded", "asked", "suggested", "memory_ids", "error")


@server.tool(
    description="Learn from a conversation, as memoryapp's own chat learns: what the user said worth "
    "remembering becomes memories (changes replace what they change, secrets are dropped), each true from "
    "its turn's created_at. 'messages': the turns in order, [{role: user|assistant, content, created_at?}], "
    "at most 500. The same idempotency_key again learns nothing new and answers the first call's result."
)
async def learn_from_conversation(
    ctx: Context,
    messages: Annotated[list[Any], Field(description="[{role: 'user' or 'assistant', content, created_at?}]")],
    source: Annotated[str, Field(description="where the turns come from, e.g. your program's name")] = "",
    idempotency_key: Annotated[str | None, Field(description="the same key twice learns once")] = None,
) -> dict[str, Any]:
    def work(user) -> dict:
        payload = ExtractIn.model_validate({"messages": messages, "source": source, "idempotency_key": idempotency_key})
        # The learning job, run here: the tool answers once the turns are learnt.
        try:
            job = turns.learn_conversation(user, payload, actor=Actor.API)
        except ProviderError as exc:  # the job is failed, what it learnt before stays
            again = " (call again with the same idempotency_key to go on)" if payload.idempotency_key else ""
            raise ToolError(f"{exc.message}; what was learnt before that stays{again}") from None
        return {name: getattr(job, name) for name in LEARNT_FIELDS}

    return await run(ctx, work, write=True)


def _conflict_out(question) -> dict:
    return ConflictOut.from_orm(question).model_dump(mode="json")


@server.tool(
    description="Memories that may disagree (a newer one may replace an older one, e.g. two places the "
    "user lives), waiting for the user's answer. Ask the user, then call resolve_conflict."
)
async def list_conflicts(ctx: Context) -> dict[str, Any]:
    def work(user) -> dict:
        questions = conflicts.open_questions(user)
        access.note_reads([m.pk for q in questions for m in (q.older, q.newer)])
        return {"items": [_conflict_out(q) for q in questions]}

    return await run(ctx, work)


@server.tool(
    description="Answer a conflict as the user decided: 'replace' (the newer memory replaces the older, "
    "which stays in its history) or 'keep' (both stay current)."
)
async def resolve_conflict(ctx: Context, conflict_id: int, answer: Literal["replace", "keep"]) -> dict[str, Any]:
    def work(user) -> dict:
        payload = ResolveIn.model_validate({"answer": answer})
        return _conflict_out(
            conflicts.resolve(conflicts.get_question(user, conflict_id), payload.answer, actor=Actor.API)
        )

    return await run(ctx, work, write=True)


# -- a chat's working memory (engine/chat_state): the task in progress, beside a chat or a program's session ----

ConversationId = Annotated[
    int | None, Field(description="a chat of the user's (its id in /api/conversations); or give session_id")
]
SessionId = Annotated[
    str | None,
    Field(description="a name of your own for this session's state (letters, digits, . : -), when it is no chat"),
]


def _state_session(user, conversation_id: int | None, session_id: str | None) -> str:
    """The session named by exactly one of the two; another user's chat is missing, as over REST."""
    if (conversation_id is None) == (session_id is None):
        raise store.ChatStateInvalid(
            "give either conversation_id (a chat) or session_id (a name of your own), not both", "conversation_id"
        )
    if session_id is not None:
        return store.program_session(session_id)
    if not Conversation.objects.filter(pk=conversation_id, user=user).exists():
        raise MemoryNotFound(f"conversation {conversation_id} not found")
    return store.chat_session(conversation_id)  # type: ignore[arg-type]  # not None: checked above


@server.tool(
    description="The working memory of a chat or of your own session: the task in progress and its details "
    "(destination, dates, budget…), each entry with its key. Entries expire a day after they were last set."
)
async def get_working_memory(
    ctx: Context, conversation_id: ConversationId = None, session_id: SessionId = None
) -> dict[str, Any]:
    def work(user) -> dict:
        session = _state_session(user, conversation_id, session_id)
        return {"entries": [entry.as_dict() for entry in store.entries(user.pk, session)]}

    return await run(ctx, work)


@server.tool(
    description="Set one entry of a chat's or session's working memory: a short key (task, destination, "
    "dates, budget…) and any JSON value; null removes it. For the task at hand only: what should outlast "
    "the session belongs in add_memory."
)
async def set_working_memory(
    ctx: Context, key: str, value: Any, conversation_id: ConversationId = None, session_id: SessionId = None
) -> dict[str, Any]:
    def work(user) -> dict:
        session = _state_session(user, conversation_id, session_id)
        written = store.put(user.pk, session, {key: value})
        return {"entries": [entry.as_dict() for entry in written]}

    return await run(ctx, work, write=True)


@server.tool(description="Remove one entry (key) of a chat's or session's working memory, or all of them (no key).")
async def clear_working_memory(
    ctx: Context, key: str | None = None, conversation_id: ConversationId = None, session_id: SessionId = None
) -> dict[str, Any]:
    def work(user) -> dict:
        session = _state_session(user, conversation_id, session_id)
        if key is None:
            return {"removed": store.clear(user.pk, session)}
        return {"removed": int(store.remove(user.pk, session, store.check_key(key)))}

    return await run(ctx, work, write=True)


server.add_resource(
    CoreMemories(
        uri=CORE_URI,
        name="core-memories",
        title="Core memories",
        description="The user's core memories, most important first: what every chat of theirs starts with.",
        mime_type="application/json",
    )
)
