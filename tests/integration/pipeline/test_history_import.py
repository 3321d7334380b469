"""A ChatGPT or Claude export, learnt from (engine/history/importing.py) with no model, in-process: oldest
first whatever the file's order, dated, each conversation whole or not at all, resumed after a stop, and
undone."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from bench.history_data import write_exports
from conversations.models import Conversation
from memoryapp.engine import jobs
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.chat.chat_end import unextracted_windows
from memoryapp.engine.errors import MemoryConflict, MemoryValidationError
from memoryapp.engine.history import importing
from memoryapp.engine.history.exports import NotAnExport
from memoryapp.engine.memories import purge
from memoryapp.models import Memory, MemoryStatus
from memoryapp.pipeline.models import HistoryImport, HistoryImportStatus
from tasks.learning import learn_history

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).parents[2] / "unit" / "engine" / "history_exports"


class _Queued:
    """Stands in for the worker's task: records what was queued; the test runs the job itself."""

    name = "test.learn_history"

    def __init__(self) -> None:
        self.queued: list[tuple] = []

    def delay(self, *args):
        self.queued.append(args)


@pytest.fixture
def queued():
    runner = _Queued()
    jobs.register({jobs.Job.LEARN_HISTORY: runner})
    try:
        yield runner
    finally:
        jobs.register({jobs.Job.LEARN_HISTORY: learn_history})


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return write_exports(tmp_path_factory.mktemp("history"), conversations=120, seed=44)


def _receive(user, path: Path) -> HistoryImport:
    with open(path, "rb") as handle:
        return importing.receive(user, handle, path.name)


def _handed(user, question: str) -> list[str]:
    """What a chat turn asking `question` is handed, best first (no model: the offline path)."""
    chat = Conversation.objects.create(user=user)
    turn = start_turn(chat, question, enqueue_extraction=lambda *args, **kwargs: None, llm=None)
    chat.delete()
    return [item.memory.content for item in turn.recalled]


def _answers(memories: list[str], city: tuple[str, str], other: tuple[str, str]) -> bool:
    """What the chat is handed names the city, and never the other one: a reply can only say that city."""
    said = " ".join(memories)
    return any(name in said for name in city) and not any(name in said for name in other)


@pytest.mark.parametrize("name", ["chatgpt_zip", "claude_json"])
def test_an_export_is_learnt_oldest_first_and_where_i_lived_in_2024_is_chengdu(
    alice, queued, history, name, django_capture_on_commit_callbacks
):
    job = _receive(alice, getattr(history, name))
    assert job.status == HistoryImportStatus.PREVIEW and Path(job.path).exists()
    assert 0 < importing.totals_of(job, selected=True).conversations <= 120  # archived, temporary: unticked
    everything = importing.totals_of(job)  # the whole history, where the move is told

    with django_capture_on_commit_callbacks(execute=True):
        job = importing.start(job, ticked=[row.id for row in importing.rows_of(job)])
    assert queued.queued == [(job.pk,)]
    dates = [r.created_at for r in importing.rows_of(job) if r.id in set(job.selected)]
    order = {r.id: r.created_at for r in importing.rows_of(job)}
    assert [order[cid] for cid in job.selected] == sorted(dates)  # oldest first, whatever the file's order

    job = importing.run_history_import(job.pk, llm=None)
    assert (job.status, job.done, job.total) == ("done", everything.conversations, everything.conversations), job.error
    assert job.created > 0 and job.memory_ids and job.path == ""
    assert Conversation.objects.filter(user=alice).count() == 0  # not kept as chats unless asked

    chengdu, berlin = ("Chengdu", "成都"), ("Berlin", "柏林")
    for question in ("Where did I live in 2024?", "我2024年住在哪里？"):
        assert _answers(_handed(alice, question), chengdu, berlin), (question, _handed(alice, question))
    for question in ("Where do I live now?", "我现在住在哪？"):
        assert _answers(_handed(alice, question), berlin, chengdu), (question, _handed(alice, question))


def test_undo_takes_back_every_memory_it_made_and_restores_what_it_replaced(alice, queued, history):
    mine = Memory.objects.create(user=alice, content="I live in Chengdu", kind="fact", importance=0.6, confidence=1)
    job = importing.start(_receive(alice, history.chatgpt_json), keep_chats=True)
    job = importing.run_history_import(job.pk, llm=None)
    assert job.status == "done" and len(job.conversation_ids) == job.total
    kept = Conversation.objects.filter(user=alice).order_by("created_at").first()
    assert kept.ended_at is not None and kept.created_at.year == 2023  # dated as it was held
    assert unextracted_windows(kept) == []  # learnt already: going on with it later learns only what is new
    assert Memory.objects.filter(pk__in=job.memory_ids, source_conversation__isnull=False).exists()

    taken = importing.undo(job)

    assert taken == Memory.objects.filter(pk__in=job.memory_ids, status=MemoryStatus.DELETED).count() > 0
    assert not Memory.objects.filter(pk__in=job.memory_ids, status=MemoryStatus.ACTIVE).exists()
    assert Conversation.objects.filter(user=alice).count() == 0
    mine.refresh_from_db()
    assert mine.status == MemoryStatus.ACTIVE and mine.valid_until is None  # what it replaced is current again
    with pytest.raises(MemoryConflict):
        importing.undo(HistoryImport.objects.get(pk=job.pk))


def test_a_stopped_import_resumes_after_the_last_conversation_it_learnt(alice, queued, history, monkeypatch):
    job = importing.start(_receive(alice, history.claude_zip))
    real, seen = importing.extraction.learn_candidates, []

    def down_in_the_fifth_conversation(window, llm):
        seen.append(window[0].content)
        if len(seen) == 5:
            raise RuntimeError("the worker died")
        return real(window, llm)

    monkeypatch.setattr(importing.extraction, "learn_candidates", down_in_the_fifth_conversation)
    with pytest.raises(RuntimeError):
        importing.run_history_import(job.pk, llm=None)
    job.refresh_from_db()
    assert job.status == "failed" and Path(job.path).exists() and "Resume" in job.error
    stopped_at = job.done
    learnt = set(job.memory_ids)
    assert Memory.objects.filter(user=alice).count() == len(learnt)  # nothing of the fifth was written

    job = importing.run_history_import(importing.resume(job).pk, llm=None)
    assert job.status == "done" and job.done == job.total > stopped_at
    assert learnt <= set(job.memory_ids)


def test_the_user_chooses_the_conversations_and_the_days(alice, queued):
    job = _receive(alice, FIXTURES / "chatgpt_conversations.json")
    rows = importing.rows_of(job)
    archived = next(r for r in rows if not r.selected)
    started = importing.start(job, ticked=[archived.id, rows[0].id], since=archived.created_at.date())
    assert started.selected == [archived.id]  # the other ticked one is older than the first day
    with pytest.raises(MemoryConflict):
        importing.start(started)
    other = _receive(alice, FIXTURES / "chatgpt_conversations.json")
    with pytest.raises(MemoryValidationError):
        importing.start(other, ticked=[])


def test_a_file_that_is_not_an_export_leaves_nothing_behind(alice, settings):
    with pytest.raises(NotAnExport):
        importing.receive(alice, io.BytesIO(json.dumps({"memories": []}).encode()), "memories.json")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    buffer.seek(0)
    with pytest.raises(NotAnExport):
        importing.receive(alice, buffer, "export.zip")
    assert not HistoryImport.objects.exists()
    assert not list((Path(settings.VAR_DIR) / "uploads" / str(alice.pk)).glob("*"))


def test_deleting_everything_removes_the_imports_and_their_files(alice, django_capture_on_commit_callbacks):
    job = _receive(alice, FIXTURES / "claude_conversations.json")
    assert Path(job.path).exists()
    with django_capture_on_commit_callbacks(execute=True):
        purge.purge_all(alice)
    assert not HistoryImport.objects.filter(user=alice).exists()
    assert not Path(job.path).exists()
