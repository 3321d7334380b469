"""The backup drill: a user's whole account is backed up with `manage.py backup`, the database wiped, and
`manage.py restore` brings back every row of every table bit for bit (ids, timestamps, text, vectors, the
event history), the id sequences, the indexes, the same recall answers, and a working API token."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client

from conversations.models import Citation, Conversation, Message
from memoryapp.api.auth import create_token
from memoryapp.engine.memories import purge, write
from memoryapp.engine.recall.recall import recall
from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY
from memoryapp.models import Memory, MemorySettings
from memoryapp.stack import backup
from tests.support import servers

pytestmark = pytest.mark.django_db(transaction=True)  # pg_dump reads what is committed

ALL = RECALL_POSTGRES_ONLY.model_copy(update={"limit": 10})
QUERIES = ["乌龙茶", "我的工作单位在哪里", "dark mode", "food my kid cannot eat", "marathon", "what do I like"]


@pytest.fixture
def account(alice, bob):
    """alice's memories with every kind of past: an edit (two versions), a deletion, a deletion undone, a
    memory forgotten, one deleted forever (its events outlive it); a chat citing a memory; an API token."""
    add = lambda user, text, **kw: write.add_memory(user, text, **kw).memory  # noqa: E731
    tea = add(alice, "我喜欢喝乌龙茶，不喜欢咖啡", kind="preference")
    bank = add(alice, "我在上海的一家银行工作")
    write.edit_memory(bank, {"content": "我在杭州的一家银行工作"})
    dark = add(alice, "I prefer dark mode in every editor", kind="preference")
    write.edit_memory(dark, {"importance": 0.9})
    write.delete_memory(add(alice, "My daughter Emma is allergic to peanuts"))
    undone = add(alice, "I am training for the Berlin marathon in September", kind="goal")
    write.delete_memory(undone)
    write.restore_memory(Memory.objects.get(pk=undone.pk))
    write.forget_memory(add(alice, "I once visited Lisbon in the rain"))
    purge.purge_memory(add(alice, "My old phone number was 555-0100"))
    add(bob, "I prefer light mode in every editor", kind="preference")
    MemorySettings.objects.create(user=alice, language="zh-hans", extract_every_n_turns=3)

    chat = Conversation.objects.create(user=alice, title="茶")
    Message.objects.create(conversation=chat, role="user", content="我平时爱喝什么茶？")
    answer = Message.objects.create(conversation=chat, role="assistant", content="你喜欢乌龙茶。")
    Citation.objects.create(message=answer, memory=tea, score=0.8125, rank=1)
    token = create_token(alice, "backup drill")[1]
    if servers.running_worker:  # started by an earlier suite: let it finish the syncs these writes queued
        servers.wait_until_idle(settings.REDIS_URL, servers.running_worker)
    return token


def tables() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1"
        )
        return [name for (name,) in cursor.fetchall()]


def snapshot() -> dict:
    """Every row of every table in the app's schema as Postgres prints it (floats and vectors in their
    shortest exact form), the vectors' binary form, the sequences and the index definitions."""
    with connection.cursor() as cursor:
        state = {}
        for table in tables():
            cursor.execute(f'SELECT t::text FROM "{table}" t ORDER BY 1')
            state[table] = [row for (row,) in cursor.fetchall()]
        cursor.execute("SELECT id, halfvec_send(embedding) FROM memoryapp_memory ORDER BY id")
        state["vectors"] = [(pk, bytes(raw)) for pk, raw in cursor.fetchall()]
        cursor.execute(
            "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = current_schema() ORDER BY 1"
        )
        state["sequences"] = cursor.fetchall()
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1")
        state["indexes"] = cursor.fetchall()
    return state


def answers(user) -> list[list[tuple[int, float]]]:
    """The ids in order with their similarity (the final score also weighs recency, which moves with the clock)."""
    return [
        [(item.memory.pk, round(item.similarity, 9)) for item in recall(user, q, config=ALL, record_access=False).items]
        for q in QUERIES
    ]


def wipe(how: str) -> None:
    if how == "flush":  # the rows gone, the tables kept
        call_command("flush", interactive=False, verbosity=0)
    else:  # a new, empty database: not even the tables or the extensions
        with connection.cursor() as cursor:
            cursor.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")


@pytest.mark.parametrize("how", ["flush", "drop_schema"])
def test_a_restored_backup_is_the_account_as_it_was(account, alice, tmp_path, capsys, how, settings):
    # Rows compared byte for byte: no graph rebuild rewriting their sync columns (graph/test_restore_graph.py).
    settings.GRAPH_EXTRACTION = "model"
    api = Client(HTTP_AUTHORIZATION=f"Bearer {account}")
    listed = api.get("/api/memories")
    assert listed.status_code == 200
    history = api.get(f"/api/memories/{Memory.objects.filter(user=alice).order_by('id').first().pk}/history").json()
    before, recalled = snapshot(), answers(alice)
    assert len(before["vectors"]) >= 8 and before["memoryapp_memoryevent"] and before["conversations_citation"]
    assert all(recalled)

    path = tmp_path / "drill.dump"
    call_command("backup", str(path))
    assert f"backup written: {path}" in capsys.readouterr().out
    wipe(how)
    assert not Memory.objects.exists() if how == "flush" else not tables()

    call_command("restore", str(path), "--yes")
    out = capsys.readouterr().out
    assert f"backup of database {connection.settings_dict['NAME']} made 20" in out
    assert "restored in" in out and "graph not rebuilt: GRAPH_EXTRACTION=model and no language model" in out

    after = snapshot()
    assert after.keys() == before.keys()
    for table in before:
        assert after[table] == before[table], table
    assert answers(alice) == recalled
    again = api.get("/api/memories")
    assert again.status_code == 200 and again.json() == listed.json()
    assert (
        api.get(f"/api/memories/{Memory.objects.filter(user=alice).order_by('id').first().pk}/history").json()
        == history
    )
    # New rows continue the restored ids instead of colliding with them.
    assert write.add_memory(alice, "I keep bees on the roof").memory.pk > max(pk for pk, _ in before["vectors"])


def test_it_refuses_a_missing_file_or_one_that_is_not_a_backup(db, tmp_path):
    with pytest.raises(CommandError, match="no such backup file"):
        call_command("restore", str(tmp_path / "nothing.dump"), "--yes")
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(CommandError, match="is not a backup"):
        call_command("restore", str(text), "--yes")
    other = tmp_path / "other.dump"
    backup.dump({**connection.settings_dict, "NAME": "postgres"}, other)  # the server's own, empty database
    with pytest.raises(CommandError, match="not of memoryapp"):
        call_command("restore", str(other), "--yes")
    truncated = tmp_path / "cut.dump"
    truncated.write_bytes(b"PGDMP\x01\x0e\x00")
    with pytest.raises(CommandError, match="cannot be read as a backup"):
        call_command("restore", str(truncated), "--yes")


def test_it_will_not_overwrite_a_file_or_restore_without_a_yes(db, tmp_path, monkeypatch):
    path = tmp_path / "b.dump"
    call_command("backup", str(path))
    with pytest.raises(CommandError, match="already exists"):
        call_command("backup", str(path))
    with pytest.raises(CommandError, match="cannot write a backup in"):
        call_command("backup", str(path / "inside-a-file.dump"))
    monkeypatch.setattr("builtins.input", lambda question: "no")
    with pytest.raises(CommandError, match="nothing restored"):
        call_command("restore", str(path))
