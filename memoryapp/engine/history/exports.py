"""A ChatGPT or Claude export read as a stream: one conversation in memory at a time.

`open_export(source)` takes the `.zip` as exported or its `conversations.json` alone (a path, or a binary
file that can seek), refuses a file over `ExportLimits.max_file_bytes` before reading it, and reads the first
conversation to know the format: a file that is neither raises `NotAnExport`, whose message is one sentence
for the user. Iterating the `HistoryExport` it returns yields each `HistoryConversation` in the file's order,
its messages oldest first (formats.py); what was left out is named in `export.report.skipped`.

Inside a zip, `conversations.json` (or the parts `conversations-000.json`, `conversations-001.json`, ... of a
large ChatGPT export, in order) is read from the archive as a stream, never unpacked. The JSON is parsed by
ijson's events, and each conversation is built holding only the keys `formats.KEEP` names; a string over
`max_message_bytes` is not kept (its message is skipped and named), and a conversation over `max_messages`
or `max_conversation_chars` is dropped as soon as it passes the limit, the rest of it read past unbuilt.
A file cut short or damaged raises `ExportTruncated` or `ExportDamaged`, saying how far it was read.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass, field
from typing import IO, Any

import ijson

from .formats import KEEP, ExportFormat, HistoryConversation, Keep, Oversize, Skip, conversation_name, detect
from .formats import read_conversation as _read_conversation


@dataclass(frozen=True)
class ExportLimits:
    max_file_bytes: int = 2_000_000_000  # the upload, and the conversations unpacked from a zip
    max_message_bytes: int = 1_000_000  # a longer message (a pasted log, a file) is skipped and named
    # A conversation with more messages (ChatGPT: nodes of its tree) or more text is skipped and named: one
    # conversation is built in memory at a time, and these bound it (the goal: the worker grows <= 150 MB).
    max_messages: int = 10_000
    max_conversation_chars: int = 16_000_000


DEFAULT_LIMITS = ExportLimits()
_CONVERSATIONS = re.compile(r"(?:^|/)conversations(?:-(\d+))?\.json$")
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_BOM = b"\xef\xbb\xbf"
_STARTS = frozenset(("start_map", "start_array"))
_ENDS = frozenset(("end_map", "end_array"))


class ExportError(Exception):
    """A file that cannot be read as an export; its message is one sentence for the user."""


class NotAnExport(ExportError):
    pass


class ExportTooLarge(ExportError):
    pass


class ExportDamaged(ExportError):
    pass


class ExportTruncated(ExportDamaged):
    pass


@dataclass
class ReadReport:
    conversations: int = 0  # read and yielded
    messages: int = 0
    skipped: list[Skip] = field(default_factory=list)  # whole conversations, and single messages


@dataclass
class _Dropped:
    """A conversation over a limit: what was built of it before (for its name), and why."""

    partial: dict[str, Any]
    reason: str


class _NotAList(Exception):
    pass


_Member = tuple[str, Callable[[], AbstractContextManager[Any]]]  # (what messages call it, open it)


def open_export(
    source: str | os.PathLike[str] | IO[bytes], *, limits: ExportLimits = DEFAULT_LIMITS, name: str | None = None
) -> HistoryExport:
    """The export in `source`, its format known (see the module's docstring). `name` is how messages call the
    file (default: its file name). Raises ExportError."""
    with ExitStack() as stack:
        if isinstance(source, str | os.PathLike):
            name = name or os.path.basename(os.fspath(source))
            handle: IO[bytes] = stack.enter_context(open(source, "rb"))
        else:
            name = name or os.path.basename(str(getattr(source, "name", "") or "")) or "the file"
            handle = source
        size = handle.seek(0, os.SEEK_END)
        handle.seek(0)
        if size > limits.max_file_bytes:
            raise ExportTooLarge(f"{name} is {_size(size)}; an export over {_size(limits.max_file_bytes)} is refused")
        if size == 0:
            raise NotAnExport(f"{name} is empty, so it is neither a ChatGPT nor a Claude export")
        head = handle.read(4)
        handle.seek(0)
        if head in _ZIP_MAGIC:
            members = _zip_members(handle, name, limits, stack)
        else:
            members = [(name, functools.partial(nullcontext, handle))]  # the caller's file stays open
        export = HistoryExport(name, members, limits, stack.pop_all().close)
    return export


def _zip_members(handle: IO[bytes], name: str, limits: ExportLimits, stack: ExitStack) -> list[_Member]:
    try:
        archive = stack.enter_context(zipfile.ZipFile(handle))
    except (zipfile.BadZipFile, OSError, EOFError):
        raise ExportTruncated(
            f"{name} is cut short or damaged: a zip keeps its table of contents at its end and this one has "
            "none, so nothing in it could be read (download the export again)"
        ) from None
    found = [(info, _CONVERSATIONS.search(info.filename)) for info in archive.infolist()]
    parts = sorted(
        ((int(m.group(1) or -1), info) for info, m in found if m and not info.filename.startswith("__MACOSX/")),
        key=lambda pair: (pair[0], pair[1].filename),
    )
    if not parts:
        raise NotAnExport(f"{name} holds no conversations.json, so it is neither a ChatGPT nor a Claude export")
    unpacked = sum(info.file_size for _, info in parts)
    if unpacked > limits.max_file_bytes:
        raise ExportTooLarge(
            f"the conversations in {name} are {_size(unpacked)} unpacked; an export over "
            f"{_size(limits.max_file_bytes)} is refused"
        )
    return [(f"{info.filename} in {name}", functools.partial(archive.open, info)) for _, info in parts]


class HistoryExport:
    """An open export: iterate it once for its conversations; `format`, `name` and `report` as it goes."""

    def __init__(
        self,
        name: str,
        members: list[_Member],
        limits: ExportLimits,
        close: Callable[[], None],
    ) -> None:
        self.name = name
        self.limits = limits
        self.report = ReadReport()
        self._members = members
        self._close = close
        self._where = name
        self._last: HistoryConversation | None = None
        self._raw = self._items()
        try:
            first = next(self._raw, None)
            if first is None:
                raise NotAnExport(f"{name} holds no conversations")
            item = first[1]
            found = detect(item.partial if isinstance(item, _Dropped) else item)
            if found is None:
                raise NotAnExport(
                    f"{name} is neither a ChatGPT nor a Claude export: its first entry has neither the "
                    "“mapping” of a ChatGPT conversation nor the “chat_messages” of a Claude one"
                )
        except BaseException:
            self.close()
            raise
        self.format: ExportFormat = found
        self._first = first

    def __enter__(self) -> HistoryExport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._close()

    def __iter__(self) -> Iterator[HistoryConversation]:
        for position, item in itertools.chain([self._first], self._raw):
            if isinstance(item, _Dropped):
                cid, title = conversation_name(item.partial, position)
                self.report.skipped.append(Skip(cid, title, f"{item.reason}; skipped"))
                continue
            if detect(item) is not self.format:
                cid, title = conversation_name(item, position)
                reason = f"entry {position:,} is not a {self.format.label} conversation; skipped"
                self.report.skipped.append(Skip(cid, title, reason))
                continue
            assert isinstance(item, dict)
            conversation, skips = _read_conversation(self.format, item, position, self.limits.max_message_bytes)
            self.report.skipped.extend(skips)
            self.report.conversations += 1
            self.report.messages += len(conversation.messages)
            self._last = conversation
            yield conversation

    def _items(self) -> Iterator[tuple[int, object]]:
        """(position from 1, the entry as built) for every entry of every member, errors made sentences."""
        position, began = 0, False
        try:
            for where, open_member in self._members:
                self._where, began = where, False
                with open_member() as stream:
                    if stream.read(3) != _BOM:
                        stream.seek(0)
                    events = ijson.basic_parse(stream, use_float=True)
                    first = next(events, None)
                    began = True
                    for item in _entries(first, events, self.limits):
                        position += 1
                        yield position, item
        except _NotAList:
            raise NotAnExport(
                f"{self._where} is neither a ChatGPT nor a Claude export: it is not a list of conversations"
            ) from None
        except ijson.JSONError as error:
            if "premature EOF" in str(error):
                raise ExportTruncated(f"{self._where} is cut short {self._so_far(position + 1)}") from None
            if not began:
                raise NotAnExport(
                    f"{self._where} is not JSON, so it is neither a ChatGPT nor a Claude export"
                ) from None
            raise ExportDamaged(f"{self._where} is damaged (not valid JSON) {self._so_far(position + 1)}") from None
        except (zipfile.BadZipFile, zlib.error, EOFError):
            raise ExportTruncated(f"{self._where} is cut short or damaged {self._so_far(position + 1)}") from None

    def _so_far(self, at: int) -> str:
        if self._last is None:
            return f"in conversation {at:,}: nothing before it could be read"
        last = self._last
        when = f", from {last.created_at:%d %B %Y}" if last.created_at else ""
        before = "the one before it was read" if at == 2 else f"the {at - 1:,} before it were read"
        return f"in conversation {at:,}: {before} (the last, “{last.title or last.id}”{when})"


def _entries(
    first: tuple[str, Any] | None, events: Iterator[tuple[str, Any]], limits: ExportLimits
) -> Iterator[object]:
    """Each entry of the top-level list (which began with `first`), built as `KEEP` says."""
    if first is None or first[0] != "start_array":
        raise _NotAList
    for event, value in events:
        if event == "end_array":
            return
        yield _build(event, value, events, limits)


def _build(event: str, value: Any, events: Iterator[tuple[str, Any]], limits: ExportLimits) -> object:
    """One entry from its first event on: the keys `KEEP` names, or a `_Dropped` past a limit."""
    if event not in _STARTS:
        return value
    if event == "start_array":
        _read_past(events, 1)
        return []
    root: dict[str, Any] = {}
    containers: list[Any] = [root]
    keeps: list[Keep] = [KEEP]
    keys: list[Any] = [None]  # the key whose value comes next, in a map
    child_keeps: list[Keep | None] = [None]  # what to keep of that value
    skipping = messages = chars = 0
    for event, value in events:
        if skipping:
            skipping += 1 if event in _STARTS else -1 if event in _ENDS else 0
            continue
        if event == "map_key":
            keys[-1] = value
            child_keeps[-1] = keeps[-1].child(value)
            continue
        if event in _ENDS:
            containers.pop()
            keeps.pop()
            keys.pop()
            child_keeps.pop()
            if not containers:
                return root
            continue
        parent = containers[-1]
        keep = keeps[-1].child("*") if isinstance(parent, list) else child_keeps[-1]
        if keep is None:
            skipping = 1 if event in _STARTS else 0
            continue
        if keeps[-1].counts:
            messages += 1
            if messages > limits.max_messages:
                _read_past(events, len(containers) + (event in _STARTS))
                return _Dropped(root, f"it has more than {limits.max_messages:,} messages")
        if event == "string":
            if len(value) > limits.max_message_bytes // 4 and (size := len(value.encode())) > limits.max_message_bytes:
                value = Oversize(size)
            else:
                chars += len(value)
                if chars > limits.max_conversation_chars:
                    _read_past(events, len(containers))
                    return _Dropped(root, f"it holds more than {limits.max_conversation_chars:,} characters")
        elif event in _STARTS:
            value = {} if event == "start_map" else []
        if isinstance(parent, list):
            parent.append(value)
        else:
            parent[keys[-1]] = value
        if event in _STARTS:
            containers.append(value)
            keeps.append(keep)
            keys.append(None)
            child_keeps.append(None)
    raise ijson.IncompleteJSONError("premature EOF")


def _read_past(events: Iterator[tuple[str, Any]], depth: int) -> None:
    """Read the events up to where `depth` open containers close."""
    for event, _ in events:
        if event in _STARTS:
            depth += 1
        elif event in _ENDS:
            depth -= 1
            if depth == 0:
                return
    raise ijson.IncompleteJSONError("premature EOF")


def _size(size: int) -> str:
    return f"{size / 1_000_000_000:.1f} GB" if size >= 100_000_000 else f"{size / 1_000_000:.1f} MB"
