"""What a conversation of an export is, read from each format into one shape.

The reader (exports.py) hands each conversation here as the dict it built from the stream, holding only the
keys `KEEP` names, so a conversation's other metadata never reaches memory; a string over the message size
limit arrives as an `Oversize` in its place.

ChatGPT (`conversations.json`, a list): each conversation has `title`, `create_time` (epoch seconds), `mapping`
(node id -> {message, parent, children}) and `current_node`. What the user saw is the path from `current_node`
back to the root: a regenerated answer or an edited question leaves other branches, which are not read. Only
user and assistant messages with text are kept: system, tool and hidden context messages, tool calls (an
assistant message to a `recipient` other than `all`), reasoning, code and image parts are dropped.
`is_archived` and `is_temporary_chat` are carried as flags.

Claude (`conversations.json`, a list): each has `uuid`, `name`, `created_at` (ISO 8601) and `chat_messages`
[{uuid, sender: human|assistant, text, content: [{type, text}], created_at, parent_message_uuid}]. A message's
text is its `content` blocks of type `text` (thinking and tool blocks dropped), else its `text`. Where the
messages link to their parents, the branch read is the path back from `current_leaf_message_uuid` (or, where
there is none, from the newest message); else the list as it is.

A message without a time takes the one before it (the first, the conversation's); a conversation without one
takes its first message's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any

USER = "user"
ASSISTANT = "assistant"


class ExportFormat(str, Enum):
    CHATGPT = "chatgpt"
    CLAUDE = "claude"

    @property
    def label(self) -> str:
        return "ChatGPT" if self is ExportFormat.CHATGPT else "Claude"


@dataclass(frozen=True)
class Oversize:
    """A string over the message size limit, left in the stream: only its size is kept."""

    size: int  # bytes, UTF-8


@dataclass(frozen=True)
class HistoryMessage:
    role: str  # USER or ASSISTANT
    text: str
    created_at: datetime | None


@dataclass(frozen=True)
class HistoryConversation:
    id: str
    title: str
    created_at: datetime | None
    messages: tuple[HistoryMessage, ...]
    archived: bool = False
    temporary: bool = False

    @property
    def user_turns(self) -> int:
        return sum(1 for m in self.messages if m.role == USER)


@dataclass(frozen=True)
class Skip:
    """Something of the export left out, named for the report: a conversation, or one message of it."""

    conversation_id: str
    title: str
    reason: str

    def __str__(self) -> str:
        return f"“{self.title or self.conversation_id}”: {self.reason}"


@dataclass(frozen=True)
class Keep:
    """Which keys of a JSON value the reader builds: `children` by key ("*": any key, or any item of a list);
    a container whose children are not named is built empty. `counts`: each child is a message, counted
    against the limit on messages in a conversation."""

    children: Mapping[str, Keep] = field(default_factory=dict)
    counts: bool = False

    def child(self, key: str) -> Keep | None:
        found = self.children.get(key)
        return found if found is not None else self.children.get("*")


SCALAR = Keep()


def _keep(*scalars: str, counts: bool = False, **children: Keep) -> Keep:
    return Keep({**dict.fromkeys(scalars, SCALAR), **children}, counts)


_CHATGPT_NODE = _keep(
    "parent",
    message=_keep(
        "create_time",
        "recipient",
        author=_keep("role"),
        content=_keep("content_type", parts=Keep({"*": SCALAR})),
        metadata=_keep("is_visually_hidden_from_conversation"),
    ),
)
_CLAUDE_MESSAGE = _keep(
    "uuid", "sender", "text", "created_at", "parent_message_uuid", content=Keep({"*": _keep("type", "text")})
)
# A conversation of either format: the keys of both (they do not clash).
KEEP = _keep(
    "id",
    "conversation_id",
    "title",
    "create_time",
    "current_node",
    "is_archived",
    "is_temporary_chat",
    "uuid",
    "name",
    "created_at",
    "current_leaf_message_uuid",
    mapping=Keep({"*": _CHATGPT_NODE}, counts=True),
    chat_messages=Keep({"*": _CLAUDE_MESSAGE}, counts=True),
)


def detect(item: object) -> ExportFormat | None:
    """The format a conversation is written in, or None for neither."""
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("mapping"), dict):
        return ExportFormat.CHATGPT
    if isinstance(item.get("chat_messages"), list):
        return ExportFormat.CLAUDE
    return None


def read_conversation(
    fmt: ExportFormat, item: dict[str, Any], position: int, max_message_bytes: int
) -> tuple[HistoryConversation, list[Skip]]:
    """The conversation `item` (the `position`th of the export, from 1) and the messages left out of it."""
    if fmt is ExportFormat.CHATGPT:
        return _chatgpt(item, position, max_message_bytes)
    return _claude(item, position, max_message_bytes)


def conversation_name(item: object, position: int) -> tuple[str, str]:
    """(id, title) of a conversation of either format, for a report that skips it whole."""
    if not isinstance(item, dict):
        return f"#{position}", ""
    cid = _text(item.get("id")) or _text(item.get("conversation_id")) or _text(item.get("uuid"))
    return cid or f"#{position}", _text(item.get("title")) or _text(item.get("name"))


# ChatGPT


def _chatgpt(item: dict[str, Any], position: int, limit: int) -> tuple[HistoryConversation, list[Skip]]:
    cid, title = conversation_name(item, position)
    mapping = item.get("mapping")
    nodes = mapping if isinstance(mapping, dict) else {}
    said: list[tuple[str, str, datetime | None]] = []
    skips: list[Skip] = []
    for node in _chatgpt_branch(nodes, item.get("current_node")):
        message = node.get("message")
        role = _chatgpt_role(message)
        if role is None:
            continue
        assert isinstance(message, dict)
        content = message.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        text, size = _joined(parts if isinstance(parts, list) else [], "\n", limit)
        if size is not None:
            skips.append(_oversize(cid, title, len(said) + len(skips) + 1, role, size, limit))
        elif text:
            said.append((role, text, _epoch(message.get("create_time"))))
    created, messages = _dated(_epoch(item.get("create_time")), said)
    flags = {"archived": item.get("is_archived") is True, "temporary": item.get("is_temporary_chat") is True}
    return HistoryConversation(cid, title, created, messages, **flags), skips


def _chatgpt_branch(nodes: dict[str, Any], current: object) -> list[dict[str, Any]]:
    """The nodes from the root to `current` (the newest message where it is missing), oldest first."""
    if not isinstance(current, str) or current not in nodes:
        current = _newest_chatgpt_node(nodes)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    at: object = current
    while isinstance(at, str) and at not in seen and isinstance(nodes.get(at), dict):
        seen.add(at)
        path.append(nodes[at])
        at = nodes[at].get("parent")
    path.reverse()
    return path


def _newest_chatgpt_node(nodes: dict[str, Any]) -> str | None:
    newest, when = None, -math.inf
    for node_id, node in nodes.items():
        message = node.get("message") if isinstance(node, dict) else None
        at = message.get("create_time") if isinstance(message, dict) else None
        at = at if isinstance(at, int | float) and not isinstance(at, bool) else -1.0
        if at >= when:
            newest, when = node_id, at
    return newest


def _chatgpt_role(message: object) -> str | None:
    """USER or ASSISTANT for a message the user saw as text; None for anything else."""
    if not isinstance(message, dict):
        return None
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if role not in (USER, ASSISTANT):
        return None  # system, tool
    metadata = message.get("metadata")
    if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation") is True:
        return None  # the custom instructions, context the app added
    recipient = message.get("recipient")
    if isinstance(recipient, str) and recipient not in ("all", ""):
        return None  # a call to a tool (python, browser, dalle)
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in ("text", "multimodal_text"):
        return None  # code, execution output, thoughts, reasoning recaps, user_editable_context
    return str(role)


# Claude


def _claude(item: dict[str, Any], position: int, limit: int) -> tuple[HistoryConversation, list[Skip]]:
    cid, title = conversation_name(item, position)
    listed = item.get("chat_messages")
    raw = [m for m in listed if isinstance(m, dict)] if isinstance(listed, list) else []
    said: list[tuple[str, str, datetime | None]] = []
    skips: list[Skip] = []
    for message in _claude_branch(raw, item.get("current_leaf_message_uuid")):
        role = {"human": USER, "assistant": ASSISTANT}.get(str(message.get("sender")))
        if role is None:
            continue
        blocks = message.get("content")
        texts = (
            [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
            if isinstance(blocks, list)
            else []
        )
        text, size = _joined(texts or [message.get("text")], "\n\n", limit)
        if size is not None:
            skips.append(_oversize(cid, title, len(said) + len(skips) + 1, role, size, limit))
        elif text:
            said.append((role, text, _iso(message.get("created_at"))))
    created, messages = _dated(_iso(item.get("created_at")), said)
    return HistoryConversation(cid, title, created, messages), skips


def _claude_branch(messages: list[dict[str, Any]], leaf: object) -> list[dict[str, Any]]:
    by_id = {m["uuid"]: m for m in messages if isinstance(m.get("uuid"), str)}
    parents = [m.get("parent_message_uuid") for m in messages]
    if not any(isinstance(p, str) and p in by_id for p in parents):
        return messages  # not linked: the list is the conversation
    if not isinstance(leaf, str) or leaf not in by_id:
        newest = max(range(len(messages)), key=lambda i: (_iso(messages[i].get("created_at")) or _NEVER, i))
        leaf = messages[newest].get("uuid")
    path: list[dict[str, Any]] = []
    at: object = leaf
    while isinstance(at, str) and at in by_id and len(path) < len(by_id):
        path.append(by_id[at])
        at = by_id[at].get("parent_message_uuid")
    path.reverse()
    return path


# Shared


_NEVER = datetime.min.replace(tzinfo=UTC)


def _joined(parts: list[object], sep: str, limit: int) -> tuple[str, int | None]:
    """The text parts joined, and None; or ("", size) where a part or the whole is over `limit` bytes."""
    oversize = [p.size for p in parts if isinstance(p, Oversize)]
    if oversize:
        return "", max(oversize)
    text = sep.join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    if len(text) > limit // 4:  # a character is at most 4 bytes: shorter texts cannot be over
        size = len(text.encode())
        if size > limit:
            return "", size
    return text, None


def _oversize(cid: str, title: str, number: int, role: str, size: int, limit: int) -> Skip:
    who = "yours" if role == USER else "the assistant's"
    return Skip(
        cid, title, f"message {number} ({who}) is {_megabytes(size)}, over the {_megabytes(limit)} limit; skipped"
    )


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def _dated(
    created: datetime | None, said: list[tuple[str, str, datetime | None]]
) -> tuple[datetime | None, tuple[HistoryMessage, ...]]:
    created = created or next((at for _, _, at in said if at is not None), None)
    messages, previous = [], created
    for role, text, at in said:
        previous = at or previous
        messages.append(HistoryMessage(role, text, previous))
    return created, tuple(messages)


def _epoch(value: object) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    if not 0 < value < 32_503_680_000:  # before the year 3000
        return None
    return datetime.fromtimestamp(value, UTC)


def _iso(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""
