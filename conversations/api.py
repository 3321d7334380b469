"""REST routes for conversations and chat, mounted at /api/conversations by memoryapp/api/routes.py.

Authentication is the API's (session or Bearer token); `request.auth` is the caller, and every
lookup is scoped to them: another user's conversation answers 404, like one that never existed.

Unlike the chat page, creating or opening a conversation here ends none of the caller's others (two
programs of one user would end each other's chats): a client ends its own with `POST .../end`, or the
idle sweep does (engine/chat/chat_end.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema, Status
from ninja import Path as PathParam
from ninja.errors import HttpError
from pydantic import AfterValidator, ConfigDict, WithJsonSchema

from memoryapp.api.schemas import errors
from memoryapp.engine.chat import chat, chat_end
from memoryapp.engine.chat_state import store
from memoryapp.engine.memories.validation import Text
from memoryapp.providers.llm import ProviderError

from . import services
from .models import MAX_TITLE_LENGTH, Conversation, Message

router = Router(tags=["conversations"])


class ConversationIn(Schema):
    model_config = ConfigDict(extra="forbid")  # also refuses a body that is not an object (ninja would take `5`)

    title: Text = Field("", max_length=MAX_TITLE_LENGTH)
    temporary: bool = Field(False, strict=True)  # `true` or `false`, not 0 or "yes"


class RenameIn(Schema):
    model_config = ConfigDict(extra="forbid")

    title: Text = Field(..., min_length=1, max_length=MAX_TITLE_LENGTH)


class ConversationOut(Schema):
    id: int
    title: str
    temporary: bool
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None  # set once the chat ended (`POST .../end`); a new message clears it


class EndOut(Schema):
    id: int
    outcome: Literal["ended", "already_ended", "discarded"]  # discarded: a temporary chat, now gone
    ended_at: datetime | None


class CitationOut(Schema):
    memory_id: int
    content: str
    kind: str
    score: float
    rank: int  # its number in what the reply was handed: a model marks it `[rank]` in the reply's content
    valid_until: datetime | None  # set when the cited version is no longer current (it was true until then)
    used: bool  # the reply used it (with a model: marked it); False: only offered


class MemoryCommandOut(Schema):
    """Set on a turn about memory itself: "what do you remember about me?" (list), "forget that ..." (forget)."""

    intent: str
    outcome: str | None = None  # on the reply: listed, forgot, ask, nothing, everything or off
    memory_ids: list[int] = []  # what it listed, forgot (restore with POST /api/memories/{id}/restore) or asks about


class MessageOut(Schema):
    id: int
    role: str
    content: str
    created_at: datetime
    citations: list[CitationOut]  # the memories the reply used (its chips); offline, all it was handed
    used: list[int] = []  # their memory ids, in the reply's numbering
    offered: list[CitationOut] = []  # every memory the reply was handed, used or not
    memory_command: MemoryCommandOut | None = None


class MessageIn(Schema):
    model_config = ConfigDict(extra="forbid")

    content: Text = Field(..., min_length=1, max_length=chat.MAX_MESSAGE_CHARS)


class TurnOut(Schema):
    message: MessageOut
    reply: MessageOut | None
    memory_used: bool
    # The chat's line about a secret in the message ("I won't keep a passport number: ..."); None without one.
    not_kept: str | None = None


def _caller(request: HttpRequest):
    return request.auth or request.user


def _owned(request: HttpRequest, conversation_id: int) -> Conversation:
    return get_object_or_404(Conversation, pk=conversation_id, user=_caller(request))


def _citation_out(citation) -> dict:
    memory = citation.memory
    return {
        "memory_id": citation.memory_id,
        "content": memory.content,
        "kind": memory.kind,
        "score": citation.score,
        "rank": citation.rank,
        "valid_until": memory.valid_until,
        "used": citation.used,
    }


def _message_out(message: Message) -> dict:
    offered = [_citation_out(c) for c in message.citations.all()]
    used = [c for c in offered if c["used"]]
    return {
        "id": message.pk,
        "role": message.role,
        "content": message.content,
        "created_at": message.created_at,
        "memory_command": message.memory_command,
        "citations": used,
        "used": [c["memory_id"] for c in used],
        "offered": offered,
    }


@router.get("", response={200: list[ConversationOut], **errors()})
def list_conversations(request: HttpRequest, q: str = ""):
    """Kept conversations with at least one message, most recent first; `q` filters by title."""
    return services.listed_conversations(_caller(request), q)


@router.post("", response={201: ConversationOut, **errors(403, 413, 422, 429)})
def create_conversation(request: HttpRequest, payload: ConversationIn):
    return Status(
        201, Conversation.objects.create(user=_caller(request), title=payload.title, temporary=payload.temporary)
    )


@router.get("/{int:conversation_id}", response={200: ConversationOut, **errors(404)})
def get_conversation(request: HttpRequest, conversation_id: int):
    return _owned(request, conversation_id)


@router.patch("/{int:conversation_id}", response={200: ConversationOut, **errors(403, 404, 413, 422, 429)})
def rename_conversation(request: HttpRequest, conversation_id: int, payload: RenameIn):
    conversation = _owned(request, conversation_id)
    conversation.title = payload.title.strip()
    conversation.save(update_fields=["title", "updated_at"])
    return conversation


@router.delete("/{int:conversation_id}", response={204: None, **errors(403, 404, 429)})
def delete_conversation(request: HttpRequest, conversation_id: int):
    _owned(request, conversation_id).delete()
    return Status(204, None)


@router.post(
    "/{int:conversation_id}/end",
    response={200: EndOut, **errors(403, 404, 429)},
    summary="End a chat now: its last turns are learnt from (a temporary chat is discarded)",
)
def end_conversation(request: HttpRequest, conversation_id: int):
    """End the chat now, as leaving it on the chat page does: its turns not yet learnt from are, and its
    last episode is written, in the background. Idempotent: ending it again answers `already_ended`. A
    temporary chat is discarded (`discarded`; it is gone, so a second call answers 404). A new message
    reopens an ended chat; it ends again later with only what is new."""
    conversation = _owned(request, conversation_id)
    outcome = chat_end.end_chat(conversation.pk)
    ended_at = Conversation.objects.filter(pk=conversation.pk).values_list("ended_at", flat=True).first()
    return {"id": conversation.pk, "outcome": outcome, "ended_at": ended_at}


@router.get("/{int:conversation_id}/messages", response={200: list[MessageOut], **errors(404)})
def list_messages(request: HttpRequest, conversation_id: int):
    return [_message_out(m) for m in services.page_messages(_owned(request, conversation_id))]


@router.post("/{int:conversation_id}/messages", response={201: TurnOut, **errors(403, 404, 413, 422, 429, 502)})
def post_message(request: HttpRequest, conversation_id: int, payload: MessageIn):
    """Send a message and wait for the whole reply. If the model fails (502) the message is kept;
    post to `/retry` to answer it again."""
    return _answer(_owned(request, conversation_id), payload.content)


@router.post("/{int:conversation_id}/retry", response={201: TurnOut, **errors(403, 404, 422, 429, 502)})
def retry(request: HttpRequest, conversation_id: int):
    """Answer the last user message again, when it has no reply."""
    return _answer(_owned(request, conversation_id), None)


def _answer(conversation: Conversation, text: str | None):
    try:
        turn, reply = chat.chat_turn(conversation, text)
    except chat.ChatInputError as exc:
        return Status(422, {"detail": exc.message})
    except ProviderError as exc:  # the user's message is kept: `/retry` answers it
        return Status(502, {"detail": exc.message})
    if reply is None:
        raise HttpError(502, "The language model returned an empty reply.")
    return Status(
        201,
        {
            "message": _message_out(services.message_for_page(turn.user_message.pk)),
            "reply": _message_out(services.message_for_page(reply.pk)),
            "memory_used": turn.memory_used,
            "not_kept": (services.withheld_note(turn.user_message) if turn.memory_used else "") or None,
        },
    )


# -- a chat's working memory (engine/chat_state): the task in progress, kept beside the chat -----------------


class StateEntryOut(Schema):
    key: str
    value: Any  # any JSON value
    by: str  # who wrote it last: "you" (the page), "chat" (the chat itself), a program ("app:<id>", "token:<id>")
    updated_at: datetime  # it expires WORKING_MEMORY_TTL_HOURS after this


class StateOut(Schema):
    entries: list[StateEntryOut]


class StateValueIn(Schema):
    model_config = ConfigDict(extra="forbid")

    value: Any = Field(..., description="any JSON value; null removes the entry")


def _state_key(key: str) -> str:
    try:
        return store.check_key(key)
    except store.ChatStateInvalid as exc:
        raise ValueError(exc.message) from None  # the rule in words; the schema states it as a pattern


StateKey = Annotated[
    str,
    AfterValidator(_state_key),
    WithJsonSchema(
        {"type": "string", "pattern": store.KEY_RULE, "description": "1 to 64 characters, no / or control character"}
    ),
    PathParam(),
]


def _session(request: HttpRequest, conversation_id: int) -> str:
    return store.chat_session(_owned(request, conversation_id).pk)


@router.get(
    "/{int:conversation_id}/working-memory",
    response={200: StateOut, **errors(404, 503)},
    summary="The chat's working memory: every entry with its key, newest write last",
)
def get_working_memory(request: HttpRequest, conversation_id: int):
    return {
        "entries": [entry.as_dict() for entry in store.entries(request.auth.pk, _session(request, conversation_id))]
    }


@router.get(
    "/{int:conversation_id}/working-memory/{key}",
    response={200: StateEntryOut, **errors(404, 422, 503)},
    summary="One entry of the chat's working memory",
)
def get_working_memory_entry(request: HttpRequest, conversation_id: int, key: StateKey):
    entry = store.get(request.auth.pk, _session(request, conversation_id), store.check_key(key))
    if entry is None:
        raise HttpError(404, f"no entry named {key!r} in this chat's working memory")
    return entry.as_dict()


@router.put(
    "/{int:conversation_id}/working-memory/{key}",
    response={200: StateEntryOut, 204: None, **errors(403, 404, 413, 422, 429, 503)},
    summary="Set one entry (any JSON value; null removes it); it expires WORKING_MEMORY_TTL_HOURS after",
)
def put_working_memory_entry(request: HttpRequest, conversation_id: int, key: StateKey, payload: StateValueIn):
    session = _session(request, conversation_id)
    key = store.check_key(key)
    written = store.put(request.auth.pk, session, {key: payload.value})
    entry = next((entry for entry in written if entry.key == key), None)
    return Status(204, None) if entry is None else entry.as_dict()


@router.delete(
    "/{int:conversation_id}/working-memory/{key}",
    response={204: None, **errors(403, 404, 422, 429, 503)},
    summary="Remove one entry",
)
def delete_working_memory_entry(request: HttpRequest, conversation_id: int, key: StateKey):
    if not store.remove(request.auth.pk, _session(request, conversation_id), store.check_key(key)):
        raise HttpError(404, f"no entry named {key!r} in this chat's working memory")
    return Status(204, None)


@router.delete(
    "/{int:conversation_id}/working-memory",
    response={204: None, **errors(403, 404, 429, 503)},
    summary="Clear the chat's working memory",
)
def clear_working_memory(request: HttpRequest, conversation_id: int):
    store.clear(request.auth.pk, _session(request, conversation_id))
    return Status(204, None)
