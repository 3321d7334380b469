"""Reading a ChatGPT or Claude export (engine/history): each format from a fixture written to its published
shape, the zip as exported, the format told from the first conversation, files that are neither or cut short,
the size limits, and the memory a 1,000-conversation export takes to read."""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.history_data import write_exports
from memoryapp.engine.history.exports import (
    ExportDamaged,
    ExportLimits,
    ExportTooLarge,
    ExportTruncated,
    NotAnExport,
    open_export,
)
from memoryapp.engine.history.formats import ExportFormat

FIXTURES = Path(__file__).parent / "history_exports"
CHATGPT = FIXTURES / "chatgpt_conversations.json"
CLAUDE = FIXTURES / "claude_conversations.json"


def read(source, **kwargs):
    with open_export(source, **kwargs) as export:
        return export.format, list(export), export.report


def texts(conversation):
    return [(m.role, m.text) for m in conversation.messages]


def raw(path):
    return json.loads(path.read_text())


def test_it_reads_a_chatgpt_conversation_along_its_current_branch_only():
    fmt, conversations, report = read(CHATGPT)

    assert fmt is ExportFormat.CHATGPT
    assert [c.title for c in conversations] == ["Moving plans and a bike", "搬家以后的周末安排", "Old tax question"]
    bike = conversations[0]
    assert bike.id == "6a1b3c5d-0001-4e2f-9a1b-chatgpt00001"
    assert bike.created_at == datetime.fromtimestamp(1689416400.123, UTC)
    # The regenerated first answer and the first version of the edited question are other branches; the
    # hidden system and custom-instruction nodes, the tool call and its output, and the image part are not text.
    assert texts(bike) == [
        ("user", "I live in Chengdu and I'm thinking about buying a commuter bike. Any advice for rainy cities?"),
        ("assistant", "For a rainy city, look for full fenders, hub gears and disc brakes."),
        ("user", "My budget is 800 dollars. Here is the one I like; can you work out the monthly cost over two years?"),
        ("assistant", "That comes to about 33 dollars a month over 24 months."),
    ]
    assert bike.user_turns == 2
    assert report.skipped == [] and report.conversations == 3 and report.messages == 10


def test_it_keeps_chinese_text_exactly_and_dates_each_message():
    _, conversations, _ = read(CHATGPT)
    moved = conversations[1]
    mapping = raw(CHATGPT)[1]["mapping"]

    assert [m.text for m in moved.messages] == [
        mapping[node]["message"]["content"]["parts"][0] for node in ("b2-u1", "b2-a1", "b2-u2", "b2-a2")
    ]
    assert moved.messages[0].text == "我上个月刚从成都搬到柏林，周末想找个地方学德语，有什么建议？"
    # The reasoning node ("thoughts") is not a message; the one without a time takes the one before it.
    times = [m.created_at for m in moved.messages]
    assert times[0] == datetime.fromtimestamp(1741593660.0, UTC)
    assert times[2] == times[1] == datetime.fromtimestamp(1741593680.0, UTC)
    assert conversations[2].archived and not conversations[0].archived


def test_it_reads_a_claude_export_with_its_text_blocks_and_current_branch():
    fmt, conversations, report = read(CLAUDE)

    assert fmt is ExportFormat.CLAUDE
    starter, commute, cat = conversations
    assert starter.id == "3f2c9a10-0001-4b6e-8d7a-claude000001"
    assert starter.created_at == datetime(2024, 2, 3, 9, 15, 22, 418211, tzinfo=UTC)
    # Thinking, tool use and tool result blocks are not what the user read; the text blocks around them are.
    assert texts(starter)[1] == (
        "assistant",
        "That acetone smell means the starter is hungry. At 28°C feed it twice a day.\n\nI've put a feeding schedule above.",
    )
    # The abandoned retry is off the branch that ends at current_leaf_message_uuid.
    assert texts(commute) == [
        ("user", "我现在住在柏林的新克尔恩区，下个月开始在米特区上班，怎么通勤最方便？"),
        ("assistant", "最方便的是坐U8地铁，大约20分钟；天气好的话骑车也只要25分钟。"),
        ("user", "那我买一张德国票（Deutschlandticket），每月58欧。"),
    ]
    # An older export: messages with `text` only, no links.
    assert texts(cat)[0] == ("user", "My cat Mochi is 12 and has kidney issues. Which food brands are kind to kidneys?")
    assert [c.user_turns for c in conversations] == [2, 2, 1]
    assert report.skipped == []


def test_it_reads_conversations_json_from_the_zip_as_exported(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("user.json", '{"id": "user-1"}')
        z.writestr("chat.html", "<html></html>")
        z.write(CHATGPT, "conversations.json")

    _, from_zip, _ = read(archive)
    _, from_json, _ = read(CHATGPT)
    assert from_zip == from_json


def test_it_reads_the_parts_of_a_large_chatgpt_export_in_order(tmp_path):
    conversations = raw(CHATGPT)
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("conversations-001.json", json.dumps(conversations[2:]))
        z.writestr("conversations-000.json", json.dumps(conversations[:2]))

    _, read_back, _ = read(archive)
    assert [c.title for c in read_back] == ["Moving plans and a bike", "搬家以后的周末安排", "Old tax question"]


def test_it_reads_an_open_file_and_leaves_it_open():
    with CLAUDE.open("rb") as handle:
        fmt, conversations, _ = read(handle)
        assert not handle.closed
    assert fmt is ExportFormat.CLAUDE and len(conversations) == 3


def test_it_tells_the_format_from_the_first_conversation_and_skips_one_of_the_other():
    mixed = raw(CLAUDE)[:1] + raw(CHATGPT)[:1] + raw(CLAUDE)[1:2]

    fmt, conversations, report = read(io.BytesIO(json.dumps(mixed).encode()), name="conversations.json")

    assert fmt is ExportFormat.CLAUDE
    assert [c.title for c in conversations] == ["Sourdough starter troubleshooting", "新工作的通勤路线"]
    (skip,) = report.skipped
    assert skip.title == "Moving plans and a bike"
    assert skip.reason == "entry 2 is not a Claude conversation; skipped"


@pytest.mark.parametrize(
    "content, says",
    [
        (b'{"memories": [{"content": "I live in Berlin"}]}', "it is not a list of conversations"),
        (b'[{"role": "user", "content": "hi"}]', "neither the “mapping” of a ChatGPT conversation"),
        (b"[]", "holds no conversations"),
        (b"name,city\nMia,Berlin\n", "is not JSON"),
        (b"", "is empty"),
    ],
)
def test_a_file_that_is_neither_is_one_clear_sentence(tmp_path, content, says):
    path = tmp_path / "conversations.json"
    path.write_bytes(content)

    with pytest.raises(NotAnExport) as caught:
        open_export(path)

    message = str(caught.value)
    assert says in message
    assert message.startswith("conversations.json ")
    assert "\n" not in message


def test_a_zip_without_conversations_is_neither(tmp_path):
    archive = tmp_path / "photos.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("IMG_0001.jpg", b"\xff\xd8")

    with pytest.raises(NotAnExport, match="photos.zip holds no conversations.json, so it is neither"):
        open_export(archive)


def test_a_json_cut_short_says_how_far_it_was_read(tmp_path):
    data = CHATGPT.read_bytes()
    cut = tmp_path / "conversations.json"
    cut.write_bytes(data[: data.index("周六上午有空".encode())])

    with open_export(cut) as export:
        conversations = iter(export)
        assert next(conversations).title == "Moving plans and a bike"
        with pytest.raises(ExportTruncated) as caught:
            next(conversations)

    assert str(caught.value) == (
        "conversations.json is cut short in conversation 2: the one before it was read "
        "(the last, “Moving plans and a bike”, from 15 July 2023)"
    )


def test_a_json_cut_in_its_first_conversation_reads_nothing(tmp_path):
    cut = tmp_path / "conversations.json"
    cut.write_bytes(CLAUDE.read_bytes()[:500])

    with pytest.raises(ExportTruncated, match="cut short in conversation 1: nothing before it could be read"):
        open_export(cut)


def test_a_json_damaged_in_the_middle_is_named(tmp_path):
    data = CLAUDE.read_bytes().replace(b'"name": "Cat food brands"', b'"name": Cat food brands"')
    damaged = tmp_path / "conversations.json"
    damaged.write_bytes(data)

    with (
        open_export(damaged) as export,
        pytest.raises(ExportDamaged, match=r"is damaged \(not valid JSON\) in conversation 3: the 2 before"),
    ):
        list(export)


def test_a_zip_cut_short_is_a_clear_error(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(CHATGPT, "conversations.json")
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) // 2])

    with pytest.raises(ExportTruncated, match="export.zip is cut short or damaged: .* nothing in it could be read"):
        open_export(archive)


def test_a_zip_damaged_inside_says_how_far_it_was_read(tmp_path):
    files = write_exports(tmp_path / "history", conversations=40, seed=3)
    data = bytearray(files.chatgpt_zip.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(64)  # inside conversations.json's compressed bytes
    files.chatgpt_zip.write_bytes(bytes(data))

    with open_export(files.chatgpt_zip) as export, pytest.raises(ExportDamaged) as caught:
        list(export)

    # Where the zip's checksum or inflating fails first it is "cut short or damaged"; where the bytes still
    # inflate, the JSON they make is "damaged (not valid JSON)": either way, how far it was read.
    assert str(caught.value).startswith("conversations.json in chatgpt.zip is ")
    assert "damaged" in str(caught.value)
    assert "before it were read (the last, “" in str(caught.value)


def test_a_file_over_2_gb_is_refused_before_it_is_read(tmp_path):
    huge = tmp_path / "conversations.json"
    with huge.open("wb") as f:
        f.truncate(2_000_000_001)  # sparse: nothing is written

    with pytest.raises(ExportTooLarge, match=r"conversations.json is 2.0 GB; an export over 2.0 GB is refused"):
        open_export(huge)


def test_a_zip_whose_conversations_unpack_over_the_limit_is_refused(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("conversations.json", "[" + " " * 3_000_000 + "]")

    with pytest.raises(ExportTooLarge, match="the conversations in export.zip are 3.0 MB unpacked"):
        open_export(archive, limits=ExportLimits(max_file_bytes=2_000_000))


def test_a_message_over_1_mb_is_skipped_and_named(tmp_path):
    conversations = raw(CHATGPT)
    pasted = "2025-03-10 08:00:01 INFO worker started\n" * 30_000  # 1.2 MB of log
    conversations[0]["mapping"]["a1-u2"]["message"]["content"]["parts"][1] = pasted
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(conversations))

    _, read_back, report = read(path)

    assert [m.text[:20] for m in read_back[0].messages] == [
        "I live in Chengdu an",
        "For a rainy city, lo",
        "That comes to about ",
    ]
    (skip,) = report.skipped
    assert str(skip) == "“Moving plans and a bike”: message 3 (yours) is 1.2 MB, over the 1.0 MB limit; skipped"
    assert skip.conversation_id == "6a1b3c5d-0001-4e2f-9a1b-chatgpt00001"
    assert len(read_back) == 3


def test_a_conversation_of_50000_messages_is_skipped_and_named(tmp_path):
    conversations = raw(CLAUDE)
    message = conversations[2]["chat_messages"][0]
    conversations[2]["chat_messages"] = [message] * 50_000
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(conversations[1:] + conversations[:1]))

    _, read_back, report = read(path)

    assert [c.title for c in read_back] == ["新工作的通勤路线", "Sourdough starter troubleshooting"]
    (skip,) = report.skipped
    assert str(skip) == "“Cat food brands”: it has more than 10,000 messages; skipped"


def test_a_conversation_over_the_text_limit_is_skipped_and_the_next_read():
    conversations = raw(CHATGPT)
    stream = io.BytesIO(json.dumps(conversations).encode())

    limits = ExportLimits(max_conversation_chars=300)
    _, read_back, report = read(stream, limits=limits, name="conversations.json")

    assert [c.title for c in read_back] == ["Old tax question"]
    assert [s.title for s in report.skipped] == ["Moving plans and a bike", "搬家以后的周末安排"]
    assert report.skipped[0].reason == "it holds more than 300 characters; skipped"


@pytest.fixture(scope="module")
def history_1000(tmp_path_factory):
    return write_exports(tmp_path_factory.mktemp("history"), conversations=1000, seed=44)


@pytest.mark.parametrize("which", ["chatgpt_json", "claude_zip"])
def test_reading_a_1000_conversation_export_holds_one_conversation_at_a_time(history_1000, which):
    path = getattr(history_1000, which)
    tracemalloc.start()
    try:
        with open_export(path) as export:
            conversations = messages = 0
            for conversation in export:
                conversations += 1
                messages += len(conversation.messages)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    truth = json.loads(history_1000.truth.read_text())
    assert (conversations, messages) == (1000, truth["messages"])
    # json.load of chatgpt.json peaks near 87 MB; the goal for the whole import is <= 150 MB of growth.
    assert peak < 20_000_000, f"reading {path.name} peaked at {peak / 1e6:.1f} MB"
