"""A realistic ChatGPT export and Claude export of one user's history, for the history-import benchmark and tests.

    python -m bench.history_data [--conversations 1000] [--seed 44] [--out var/bench/history]

writes chatgpt.json and chatgpt.zip (the export as downloaded: conversations.json, user.json, chat.html...),
claude.json and claude.zip (conversations.json, users.json, projects.json), and truth.json (what the history
says: counts, the city before and after the move, which conversations state it). The same conversations
are written in both formats, each to its published shape (engine/history/formats.py says which shapes):
about 20 messages each (10 user turns), dated from January 2023 to October 2026, in English (55%), Chinese
(40%) or both (5%), on ten kinds of topic with the user's own facts said along the way (bench/history_text.py).
The user lives in Chengdu until April 2025 and in Berlin after, and says so on the way. ChatGPT's
conversations carry what real ones do: a hidden system node, regenerated answers and edited questions off
the current branch, tool calls, image parts, archived and temporary chats; Claude's carry thinking blocks
and abandoned retries. The ChatGPT file lists the newest conversation first, the Claude file the oldest:
neither export promises an order. Deterministic by seed; written as a stream, one conversation at a time.
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import IO, Any

from .history_text import CITY_AFTER, CITY_BEFORE, FACTS, FIRST_DAY, GENERIC, LAST_DAY, MOVED_ON, SLOTS, TOPICS

DEFAULT_OUT = Path("var/bench/history")
DEFAULT_SEED = 44


@dataclass(frozen=True)
class Said:
    role: str  # "user" or "assistant"
    text: str
    at: datetime


@dataclass
class Planned:
    """One conversation, before it is written in either format."""

    index: int
    seed: int
    language: str
    topic: str
    title: str
    created: datetime
    said: list[Said]
    archived: bool = False
    temporary: bool = False
    facts: list[tuple[str, str]] = field(default_factory=list)  # (fact key, text said)


@dataclass(frozen=True)
class HistoryFiles:
    chatgpt_json: Path
    chatgpt_zip: Path
    claude_json: Path
    claude_zip: Path
    truth: Path


def starts(conversations: int, seed: int) -> list[datetime]:
    """When each conversation begins, oldest first: a day from FIRST_DAY to LAST_DAY, between 7:00 and 24:00."""
    rng = random.Random(seed)
    first = datetime(FIRST_DAY.year, FIRST_DAY.month, FIRST_DAY.day, 7, tzinfo=UTC)
    span = (LAST_DAY - FIRST_DAY).days
    return sorted(
        first + timedelta(days=rng.randrange(span + 1), seconds=rng.randrange(17 * 3600)) for _ in range(conversations)
    )


def planned(index: int, created: datetime, seed: int) -> Planned:
    """Conversation `index` (0 = oldest), begun at `created`: the same whatever order it is written in."""
    rng = random.Random(f"{seed}:{index}")
    roll = rng.random()
    language = "en" if roll < 0.55 else "zh" if roll < 0.95 else "mixed"
    topic = rng.choice(sorted(TOPICS))
    fills = {slot: rng.choice(values) for slot, values in SLOTS.items()}
    base = "en" if language == "en" else "zh"
    words = TOPICS[topic][base]
    title = rng.choice(words["titles"]).format(**fills)
    conversation = Planned(index, seed, language, topic, title, created, [])
    exchanges = max(4, min(18, round(rng.gauss(10, 2.5))))
    followups = _drawn(rng, words["followups"] + GENERIC[base]["followups"], exchanges - 1)
    facts = {rng.randrange(exchanges): fact for fact in _facts_for(rng, created.date(), base)}
    at = created
    for turn, followup in enumerate([rng.choice(words["openers"]), *followups]):
        lang = base
        if language == "mixed" and turn and rng.random() < 0.5:  # some turns in the other language
            lang, followup = "en", rng.choice(TOPICS[topic]["en"]["followups"] + GENERIC["en"]["followups"])
        text = _user_turn(rng, followup, lang, first=turn == 0)
        if turn in facts:
            key, said = facts[turn]
            text = f"{said} {text}" if rng.random() < 0.6 else f"{text} {said}"
            conversation.facts.append((key, said))
        conversation.said.append(Said("user", text.format(**fills), at))
        at += timedelta(seconds=rng.randint(8, 90))
        reply = " ".join(rng.sample(words["replies"] + GENERIC[base]["replies"], k=rng.choice((1, 1, 2))))
        if rng.random() < 0.3:
            reply += " " + rng.choice(GENERIC[base]["closings"])
        conversation.said.append(Said("assistant", reply.format(**fills), at))
        at += timedelta(seconds=rng.randint(30, 900))
    conversation.archived = rng.random() < 0.03
    conversation.temporary = rng.random() < 0.01
    return conversation


def _user_turn(rng: random.Random, text: str, lang: str, first: bool) -> str:
    """A follow-up as people write them: now and then a reaction before it, a detail after it."""
    if not first and rng.random() < 0.3:
        text = f"{rng.choice(GENERIC[lang]['reactions'])} {text}"
    if rng.random() < 0.35:
        text = f"{text} {rng.choice(GENERIC[lang]['details'])}"
    return text


def _drawn(rng: random.Random, pool: tuple[str, ...], k: int) -> list[str]:
    """k texts from the pool, none twice in a row, the pool reshuffled as it runs out."""
    out: list[str] = []
    while len(out) < k:
        batch = list(pool)
        rng.shuffle(batch)
        if out and batch[0] == out[-1]:
            batch.append(batch.pop(0))
        out.extend(batch)
    return out[:k]


def _facts_for(rng: random.Random, day: date, language: str) -> list[tuple[str, str]]:
    """The user's facts said in this conversation: true on `day`; the city in about one conversation in four."""
    true_then = [f for f in FACTS if f.since <= day < f.until]
    chosen = []
    if rng.random() < 0.25:
        chosen += [f for f in true_then if f.key == "city"]
    if rng.random() < 0.3:
        chosen.append(rng.choice([f for f in true_then if f.key != "city"]))
    return [(f.key, rng.choice(f.en if language == "en" else f.zh)) for f in chosen]


# ChatGPT


def chatgpt(conversation: Planned) -> dict[str, Any]:
    rng = random.Random(f"chatgpt:{conversation.seed}:{conversation.index}")
    model = {2023: "gpt-4", 2024: "gpt-4o", 2025: "gpt-4o"}.get(conversation.created.year, "gpt-5")
    mapping: dict[str, Any] = {}

    def add(message: dict[str, Any] | None, parent: str | None) -> str:
        node_id = "client-created-root" if parent is None else _uuid(rng)
        if message is not None:
            message["id"] = node_id
        mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        if parent is not None:
            mapping[parent]["children"].append(node_id)
        return node_id

    at = conversation.created.timestamp()
    cid = _uuid(rng)
    node = add(_gpt_message("system", "", None, model, hidden=True), add(None, None))
    tool_turn = (
        rng.randrange(len(conversation.said))
        if conversation.topic in ("coding", "money") and rng.random() < 0.3
        else -1
    )
    for turn, said in enumerate(conversation.said):
        when = said.at.timestamp()
        if said.role == "user" and rng.random() < 0.05:  # an edited question: the first version stays off the branch
            add(_gpt_message("user", _edited(said.text), when - 60, model), node)
        if said.role == "assistant" and rng.random() < 0.1:  # a regenerated answer
            add(_gpt_message("assistant", _regenerated(said.text, conversation.language), when - 5, model), node)
        message = _gpt_message(said.role, said.text, when, model)
        if turn == 0 and rng.random() < 0.04:
            message["content"] = {"content_type": "multimodal_text", "parts": [_image(rng), said.text]}
        if turn == tool_turn and said.role == "assistant":
            node = add(_gpt_tool_call(when - 4, model), node)
            node = add(_gpt_tool_output(when - 2), node)
        node = add(message, node)
    return {
        "title": conversation.title,
        "create_time": at,
        "update_time": conversation.said[-1].at.timestamp(),
        "mapping": mapping,
        "moderation_results": [],
        "current_node": node,
        "plugin_ids": None,
        "conversation_id": cid,
        "conversation_template_id": None,
        "gizmo_id": None,
        "gizmo_type": None,
        "is_archived": conversation.archived,
        "is_starred": None,
        "is_temporary_chat": conversation.temporary,
        "safe_urls": [],
        "blocked_urls": [],
        "default_model_slug": model,
        "voice": None,
        "async_status": None,
        "id": cid,
    }


def _gpt_message(role: str, text: str, at: float | None, model: str, hidden: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"is_visually_hidden_from_conversation": True} if hidden else {}
    if role == "assistant":
        metadata |= {"model_slug": model, "default_model_slug": model, "finish_details": {"type": "stop"}}
    return {
        "id": "",
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": at,
        "update_time": None,
        "content": {"content_type": "text", "parts": [text]},
        "status": "finished_successfully",
        "end_turn": True if role == "assistant" else None,
        "weight": 0.0 if hidden else 1.0,
        "metadata": metadata,
        "recipient": "all",
        "channel": None,
    }


def _gpt_tool_call(at: float, model: str) -> dict[str, Any]:
    call = _gpt_message("assistant", "", at, model)
    call |= {"content": {"content_type": "code", "language": "unknown", "text": "sum([420, 380, 515]) / 3"}}
    return call | {"recipient": "python", "end_turn": False}


def _gpt_tool_output(at: float) -> dict[str, Any]:
    output = _gpt_message("tool", "", at, "")
    output["author"]["name"] = "python"
    return output | {"content": {"content_type": "execution_output", "text": "438.3333333333333"}}


def _image(rng: random.Random) -> dict[str, Any]:
    return {
        "content_type": "image_asset_pointer",
        "asset_pointer": f"file-service://file-{rng.getrandbits(64):016x}",
        "size_bytes": rng.randint(40_000, 900_000),
        "width": 1024,
        "height": 768,
        "fovea": None,
        "metadata": None,
    }


def _edited(text: str) -> str:
    return text[: max(8, len(text) // 2)].rstrip() + "…"


def _regenerated(text: str, language: str) -> str:
    return ("另一种说法：" if language != "en" else "Put another way: ") + text


# Claude


def claude(conversation: Planned, account: str) -> dict[str, Any]:
    rng = random.Random(f"claude:{conversation.seed}:{conversation.index}")
    messages: list[dict[str, Any]] = []
    parent = "00000000-0000-4000-8000-000000000000"
    for said in conversation.said:
        if said.role == "assistant" and rng.random() < 0.05:  # an abandoned retry, a sibling off the branch
            messages.append(
                _claude_message(rng, said, parent, len(messages), _regenerated(said.text, conversation.language))
            )
        message = _claude_message(rng, said, parent, len(messages), said.text)
        if said.role == "assistant" and rng.random() < 0.2:
            thought = {
                "type": "thinking",
                "thinking": "The user wants a practical answer; keep it short.",
                "summaries": [],
            }
            message["content"].insert(0, _block(said.at) | thought)
            message["text"] = ""
        messages.append(message)
        parent = message["uuid"]
    return {
        "uuid": _uuid(rng),
        "name": conversation.title,
        "summary": "",
        "model": "claude-3-5-sonnet-20241022" if conversation.created.year < 2025 else "claude-sonnet-4-20250514",
        "created_at": _iso(conversation.created),
        "updated_at": _iso(conversation.said[-1].at),
        "settings": {"preview_feature_uses_artifacts": True},
        "is_starred": False,
        "project_uuid": None,
        "current_leaf_message_uuid": parent,
        "account": {"uuid": account},
        "chat_messages": messages,
    }


def _claude_message(rng: random.Random, said: Said, parent: str, index: int, text: str) -> dict[str, Any]:
    return {
        "uuid": _uuid(rng),
        "text": text,
        "content": [_block(said.at) | {"type": "text", "text": text, "citations": []}],
        "sender": "human" if said.role == "user" else "assistant",
        "index": index,
        "created_at": _iso(said.at),
        "updated_at": _iso(said.at),
        "truncated": False,
        "stop_reason": "stop_sequence" if said.role == "assistant" else None,
        "attachments": [],
        "files": [],
        "files_v2": [],
        "sync_sources": [],
        "parent_message_uuid": parent,
    }


def _block(at: datetime) -> dict[str, Any]:
    return {"start_timestamp": _iso(at), "stop_timestamp": _iso(at)}


def _iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


# Writing


class _ListWriter:
    """A JSON list written one entry at a time to several sinks."""

    def __init__(self, *sinks: IO[bytes]) -> None:
        self.sinks, self.count = sinks, 0
        self._write(b"[\n")

    def add(self, entry: object) -> None:
        data = json.dumps(entry, ensure_ascii=False, separators=(", ", ": ")).encode()
        self._write((b",\n" if self.count else b"") + data)
        self.count += 1

    def close(self) -> None:
        self._write(b"\n]\n")

    def _write(self, data: bytes) -> None:
        for sink in self.sinks:
            sink.write(data)


def write_exports(out: Path = DEFAULT_OUT, conversations: int = 1000, seed: int = DEFAULT_SEED) -> HistoryFiles:
    out.mkdir(parents=True, exist_ok=True)
    files = HistoryFiles(
        out / "chatgpt.json", out / "chatgpt.zip", out / "claude.json", out / "claude.zip", out / "truth.json"
    )
    on = starts(conversations, seed)
    account = str(uuid.UUID(int=random.Random(seed).getrandbits(128), version=4))
    truth: dict[str, Any] = {"seed": seed, "conversations": conversations, "messages": 0, "user_turns": 0}
    truth["city"] = {"before": CITY_BEFORE, "after": CITY_AFTER, "moved_on": MOVED_ON.isoformat(), "said": []}
    with (
        zipfile.ZipFile(files.chatgpt_zip, "w", zipfile.ZIP_DEFLATED) as archive,
        open(files.chatgpt_json, "wb") as plain,
    ):
        with archive.open("conversations.json", "w", force_zip64=True) as member:
            writer = _ListWriter(plain, member)
            for index in reversed(range(conversations)):  # newest first
                conversation = planned(index, on[index], seed)
                writer.add(chatgpt(conversation))
                truth["messages"] += len(conversation.said)
                truth["user_turns"] += sum(1 for s in conversation.said if s.role == "user")
                truth["city"]["said"] += [
                    [conversation.created.date().isoformat(), t] for k, t in conversation.facts if k == "city"
                ]
            writer.close()
        archive.writestr(
            "user.json",
            json.dumps({"id": f"user-{account[:8]}", "email": "mia@example.org", "chatgpt_plus_user": True}),
        )
        archive.writestr("message_feedback.json", "[]")
        archive.writestr("chat.html", "<html><body><h1>ChatGPT</h1><div id='root'></div></body></html>")
    with (
        zipfile.ZipFile(files.claude_zip, "w", zipfile.ZIP_DEFLATED) as archive,
        open(files.claude_json, "wb") as plain,
    ):
        with archive.open("conversations.json", "w", force_zip64=True) as member:
            writer = _ListWriter(plain, member)
            for index in range(conversations):  # oldest first
                writer.add(claude(planned(index, on[index], seed), account))
            writer.close()
        archive.writestr(
            "users.json", json.dumps([{"uuid": account, "full_name": "Mia", "email_address": "mia@example.org"}])
        )
        archive.writestr("projects.json", "[]")
    truth["city"]["said"].sort()
    files.truth.write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n")
    return files


def planned_all(conversations: int, seed: int = DEFAULT_SEED) -> Iterator[Planned]:
    """Every conversation, oldest first."""
    for index, created in enumerate(starts(conversations, seed)):
        yield planned(index, created, seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    files = write_exports(args.out, args.conversations, args.seed)
    for path in (files.chatgpt_json, files.chatgpt_zip, files.claude_json, files.claude_zip, files.truth):
        print(f"{path}  {path.stat().st_size / 1_000_000:.1f} MB")


if __name__ == "__main__":
    main()
