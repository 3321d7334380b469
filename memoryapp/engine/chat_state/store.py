"""Where a chat's working memory lives: one Redis hash per session, `short:work:{user id}:{session}`, one
field per entry (seed 000 keeps `short:work:{sessionId}:{key}`; a hash lists a session's entries in one
call), each field expiring WORKING_MEMORY_TTL_HOURS after it was last written (HEXPIRE, Redis 7.4+).

A session is a chat (`chat:<conversation id>`) or a name a program chose (`session:<name>`), always
inside its user's keyspace, so no route can reach another user's entries. Redis down: reads and writes
raise `ChatStateUnavailable`; the chat turn catches it and goes on without working memory."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis
from django.conf import settings

from memoryapp.engine.errors import EngineError, MemoryValidationError
from memoryapp.events import publish_chat_state
from memoryapp.lib.clients import current_client

MAX_KEY_CHARS = 64
# 1 to 64 characters of any script, no "/" (a path segment) nor control character, no space at either end.
# Written so Python and JSON Schema (the API's path parameter, ECMA-262 regexes) read it alike: one rule
# for both. Their "\s" differ (Python's holds U+0085, ECMA's U+FEFF), so the spaces are spelt out, and the
# C1 controls (U+0080-U+009F) are controls too.
_SPACE = r" \t\n\v\f\r\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_CONTROL = r"\x00-\x1f\x7f-\x9f"
KEY_RULE = rf"^[^{_SPACE}/{_CONTROL}](?:[^/{_CONTROL}]{{0,62}}[^{_SPACE}/{_CONTROL}])?$"
KEY_PATTERN = re.compile(KEY_RULE)
KEY_HELP = f"key: 1 to {MAX_KEY_CHARS} characters, without / or control characters, not starting or ending with a space"
SESSION_PATTERN = re.compile(r"^[\w.:-]{1,100}$")


class ChatStateUnavailable(EngineError):
    """Redis cannot be reached: working memory is not available for now (nothing is lost on disk)."""


class ChatStateInvalid(MemoryValidationError):
    """A key or value the store refuses (too long, too large, too many): a 422 naming the field, as any
    input the engine refuses."""


@dataclass(frozen=True)
class Entry:
    key: str
    value: Any  # any JSON value
    by: str  # who wrote it: "you" (the page), "chat" (the rules or the model), or a program's client key
    at: datetime  # when it was last written

    def as_dict(self) -> dict:
        return {"key": self.key, "value": self.value, "by": self.by, "updated_at": self.at.isoformat()}


def chat_session(conversation_id: int) -> str:
    return f"chat:{conversation_id}"


def program_session(name: str) -> str:
    """A session a program named (MCP's `session_id`): checked, so it cannot pose as a chat's."""
    if not SESSION_PATTERN.match(name):
        raise ChatStateInvalid("session_id: letters, digits and . : - only, at most 100", "session_id")
    return f"session:{name}"


_client: redis.Redis | None = None


def _redis() -> redis.Redis:
    global _client
    if _client is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    return _client


def _name(user_id: int, session: str) -> str:
    return f"short:work:{user_id}:{session}"


def entries(user_id: int, session: str) -> list[Entry]:
    """The session's live entries, oldest written first."""
    try:
        raw = _redis().hgetall(_name(user_id, session))
    except redis.RedisError as exc:
        raise ChatStateUnavailable("working memory is not available right now") from exc
    found = [_entry(key, data) for key, data in raw.items()]
    return sorted((entry for entry in found if entry is not None), key=lambda entry: entry.at)


def _entry(key: bytes | str, data: bytes | str) -> Entry | None:
    try:
        stored = json.loads(data)
        return Entry(
            key.decode() if isinstance(key, bytes) else key,
            stored["value"],
            stored.get("by", ""),
            datetime.fromisoformat(stored["at"]),
        )
    except (ValueError, KeyError, TypeError):  # written by something else: not ours to show
        return None


def get(user_id: int, session: str, key: str) -> Entry | None:
    return next((entry for entry in entries(user_id, session) if entry.key == key), None)


def check_key(key: str) -> str:
    if not KEY_PATTERN.match(key):
        raise ChatStateInvalid(KEY_HELP, "key")
    return key


def put(user_id: int, session: str, changes: dict[str, Any], *, by: str = "") -> list[Entry]:
    """Write each key's value (None removes the key), all or none; the session's entries after. `by`: who
    writes ("chat"); by default the request's program (lib/clients.py), else the user ("you"). Past the
    caps (WORKING_MEMORY_MAX_ENTRIES, WORKING_MEMORY_MAX_BYTES in all, a quarter of it per value) nothing
    is written and ChatStateInvalid says which."""
    now = datetime.now(UTC)
    by = by or current_client() or "you"
    checked = {check_key(key): value for key, value in changes.items()}
    current = {entry.key: entry for entry in entries(user_id, session)}
    encoded: dict[str, str] = {}
    for key, value in checked.items():
        if value is None:
            continue
        data = json.dumps({"value": value, "by": by, "at": now.isoformat()}, ensure_ascii=False)
        if len(data.encode()) > settings.WORKING_MEMORY_MAX_BYTES // 4:
            raise ChatStateInvalid(
                f"value: at most {settings.WORKING_MEMORY_MAX_BYTES // 4} bytes of JSON per entry", "value"
            )
        encoded[key] = data
    removed = {key for key, value in checked.items() if value is None}
    kept = {key: _size(entry) for key, entry in current.items() if key not in removed and key not in encoded}
    total = sum(kept.values()) + sum(len(data.encode()) for data in encoded.values())
    if len(kept) + len(encoded) > settings.WORKING_MEMORY_MAX_ENTRIES:
        raise ChatStateInvalid(
            f"this chat keeps at most {settings.WORKING_MEMORY_MAX_ENTRIES} entries; remove one first", "key"
        )
    if total > settings.WORKING_MEMORY_MAX_BYTES:
        raise ChatStateInvalid(
            f"this chat keeps at most {settings.WORKING_MEMORY_MAX_BYTES} bytes of working memory; remove an entry first",
            "value",
        )
    ttl = max(1, int(settings.WORKING_MEMORY_TTL_HOURS * 3600))  # a test sets a fraction of an hour
    name = _name(user_id, session)
    try:
        pipe = _redis().pipeline(transaction=True)
        if removed:
            pipe.hdel(name, *removed)
        if encoded:
            for key, data in encoded.items():
                pipe.hset(name, key, data)
            pipe.hexpire(name, ttl, *encoded)
        pipe.execute()
    except redis.RedisError as exc:
        raise ChatStateUnavailable("working memory is not available right now") from exc
    _announce(user_id, session)
    return entries(user_id, session)


def _announce(user_id: int, session: str) -> None:
    """A chat's tabs redraw their panel (a program's own session has no page)."""
    kind, _, conversation_id = session.partition(":")
    if kind == "chat" and conversation_id.isdigit():
        publish_chat_state(user_id, int(conversation_id))


def _size(entry: Entry) -> int:
    return len(
        json.dumps({"value": entry.value, "by": entry.by, "at": entry.at.isoformat()}, ensure_ascii=False).encode()
    )


def remove(user_id: int, session: str, key: str) -> bool:
    """Remove one entry; False when there was none."""
    try:
        removed = bool(_redis().hdel(_name(user_id, session), key))
    except redis.RedisError as exc:
        raise ChatStateUnavailable("working memory is not available right now") from exc
    if removed:
        _announce(user_id, session)
    return removed


def clear(user_id: int, session: str) -> int:
    """Remove every entry of the session; how many there were."""
    try:
        pipe = _redis().pipeline(transaction=True)
        pipe.hlen(_name(user_id, session))
        pipe.delete(_name(user_id, session))
        count = int(pipe.execute()[0])
    except redis.RedisError as exc:
        raise ChatStateUnavailable("working memory is not available right now") from exc
    if count:
        _announce(user_id, session)
    return count


def clear_user(user_id: int) -> None:
    """Every session of the user (their account or all their data deleted forever)."""
    try:
        client = _redis()
        for name in client.scan_iter(match=f"short:work:{user_id}:*", count=500):
            client.delete(name)
    except redis.RedisError as exc:
        raise ChatStateUnavailable("working memory is not available right now") from exc
