"""Which program read or changed a memory: every route under /api/memories that touches a memory leaves a
record naming the token it came through (MemoryEvent.client), a search or a fetch counts as a use and a
listing only as a read; the app's own pages name none. The memory's history and Settings › App activity
show the program by the name the user gave it; read records go after ACCESS_RECORD_DAYS, and with the
memory when it is deleted for good."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from memoryapp.api.auth import create_token
from memoryapp.engine import jobs
from memoryapp.engine.memories import conflicts, imports, write
from memoryapp.engine.recall import access
from memoryapp.lib import clients
from memoryapp.models import EventAction, Memory, MemoryEvent
from memoryapp.pipeline.models import ImportJob
from tasks.learning import learn_conversation
from tests.integration.api.conftest import sent_to_the_worker_without_a_model

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# How each /api/memories route touches memories; a route added without a row here fails the first test.
WRITES, USES, READS, EXPORTS, NONE = "writes", "uses", "reads", "exports", "none"
ROUTES = {
    ("get", "/api/memories"): READS,
    ("post", "/api/memories"): WRITES,
    ("post", "/api/memories/search"): USES,
    ("get", "/api/memories/stats"): NONE,  # counts only
    ("get", "/api/memories/export"): EXPORTS,
    ("post", "/api/memories/import"): WRITES,  # through its job
    ("get", "/api/memories/import/{job_id}"): NONE,  # the job's progress
    ("post", "/api/memories/extract"): WRITES,  # through its job
    ("get", "/api/memories/extract/{job_id}"): NONE,
    ("post", "/api/memories/import/history"): WRITES,  # through its job (test_history_import_api.py)
    ("post", "/api/memories/import/history/{history_id}/start"): WRITES,
    ("get", "/api/memories/import/history/{history_id}"): NONE,
    ("post", "/api/memories/import/history/{history_id}/undo"): WRITES,
    ("post", "/api/memories/import/history/{history_id}/resume"): WRITES,
    ("get", "/api/memories/conflicts"): READS,
    ("post", "/api/memories/conflicts/{question_id}/resolve"): WRITES,
    ("get", "/api/memories/{memory_id}"): USES,
    ("patch", "/api/memories/{memory_id}"): WRITES,
    ("delete", "/api/memories/{memory_id}"): WRITES,
    ("post", "/api/memories/{memory_id}/restore"): WRITES,
    ("post", "/api/memories/{memory_id}/purge"): WRITES,
    ("get", "/api/memories/{memory_id}/history"): READS,
}


@pytest.fixture
def token(alice):
    return create_token(alice, "laptop script")


@pytest.fixture
def api(token) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {token[1]}")


def _key(token) -> str:
    return clients.token_client(token[0].pk)


def _flushed() -> None:
    access.wait_for_pending_notes()
    access.flush_access()


def _reads(memory: Memory) -> list[MemoryEvent]:
    return list(MemoryEvent.objects.filter(memory_ref=memory.pk, action=EventAction.ACCESSED))


def test_the_table_names_every_memory_route(client, alice):
    client.force_login(alice)
    paths = client.get("/api/openapi.json").json()["paths"]
    routes = {
        (method, path)
        for path, operations in paths.items()
        if path.startswith("/api/memories")
        for method in operations
    }
    assert routes == set(ROUTES)


def test_each_route_records_the_token_on_what_it_reads_and_writes(api, token, alice):
    _flushed()  # start from an empty batch
    created = api.post(
        "/api/memories", {"content": "I take the 7:40 train to Leeds", "kind": "fact"}, "application/json"
    )
    memory_id = created.json()["memory"]["id"]
    api.get(f"/api/memories/{memory_id}")
    api.post("/api/memories/search", {"query": "train to Leeds"}, "application/json")
    api.get("/api/memories")
    api.get(f"/api/memories/{memory_id}/history")
    api.patch(f"/api/memories/{memory_id}", {"importance": 0.9}, "application/json")
    api.get("/api/memories/export?format=json")
    _flushed()

    memory = Memory.objects.get(pk=memory_id)
    events = MemoryEvent.objects.filter(memory_ref=memory_id)
    assert {e.action for e in events if e.action != EventAction.ACCESSED} >= {"created", "updated", "exported"}
    assert {e.client for e in events} == {_key(token)}  # every one names the token
    (read,) = _reads(memory)
    assert read.after["uses"] == 2 and read.after["reads"] == 2  # get + search used it; list + history read it
    assert memory.access_count == 2  # a listing does not keep a memory from being forgotten

    deleted = api.delete(f"/api/memories/{memory_id}")
    restored = api.post(f"/api/memories/{memory_id}/restore")
    assert (deleted.status_code, restored.status_code) == (200, 200)
    latest = MemoryEvent.objects.filter(memory_ref=memory_id).order_by("-id")[:2]
    assert [(e.action, e.client) for e in latest] == [("restored", _key(token)), ("deleted", _key(token))]


def test_conflicts_read_and_resolved_name_the_token(api, token, alice):
    older = write.add_memory(alice, "我住在西安", kind="fact").memory
    newer = write.add_memory(alice, "我们上个月搬到武汉了", kind="fact").memory
    question = conflicts.ask(alice.pk, older, newer)
    _flushed()

    assert api.get("/api/memories/conflicts").status_code == 200
    _flushed()
    assert [(e.client, e.after["reads"]) for e in _reads(older)] == [(_key(token), 1)]
    resolved = api.post(f"/api/memories/conflicts/{question.pk}/resolve", {"answer": "replace"}, "application/json")
    assert resolved.status_code == 200
    assert MemoryEvent.objects.filter(memory_ref=older.pk, action=EventAction.SUPERSEDED, client=_key(token)).exists()


def test_an_import_writes_under_the_token_that_sent_it(api, token, alice):
    answer = api.post("/api/memories/import", {"memories": [{"content": "I swim on Tuesdays"}]}, "application/json")
    assert answer.status_code == 202
    job = ImportJob.objects.get(pk=answer.json()["id"])
    assert job.client == _key(token)
    imports.run_import(job.pk)  # what the worker runs (a worker may already have run it: done answers again)
    memory = Memory.objects.get(user=alice, content="I swim on Tuesdays")
    assert MemoryEvent.objects.get(memory_ref=memory.pk, action=EventAction.IMPORTED).client == _key(token)


@pytest.fixture
def worker(worker_without_a_model) -> Iterator[None]:
    with sent_to_the_worker_without_a_model(jobs.Job.LEARN, learn_conversation):
        yield


def test_what_a_worker_learns_from_a_programs_turns_names_that_program(api, token, alice, worker):
    answer = api.post(
        "/api/memories/extract",
        {"messages": [{"role": "user", "content": "我每周三晚上打羽毛球"}]},
        "application/json",
    )
    assert answer.status_code == 202
    deadline = time.monotonic() + 90
    while api.get(answer["Location"]).json()["status"] not in ("done", "failed", "skipped"):
        assert time.monotonic() < deadline, "the learning job did not finish"
        time.sleep(0.1)
    learnt = Memory.objects.get(user=alice, source="extracted")
    assert MemoryEvent.objects.get(memory_ref=learnt.pk, action=EventAction.CREATED).client == _key(token)


def test_the_apps_own_pages_record_no_program(alice_client, alice):
    memory = write.add_memory(alice, "I prefer aisle seats").memory
    _flushed()
    alice_client.get("/settings/memories")
    alice_client.get("/api/memories")  # the page's own scripts call the API with the session
    _flushed()
    assert _reads(memory) == []
    assert MemoryEvent.objects.get(memory_ref=memory.pk).client == ""


@pytest.mark.parametrize(
    ("language", "used", "created"),
    [("en", "Used by", "Created"), ("zh-Hans", "使用了", "创建")],
)
def test_the_history_names_the_program_in_the_users_words(api, token, alice, alice_client, language, used, created):
    _flushed()
    memory_id = api.post("/api/memories", {"content": "My dentist is Dr. Okafor"}, "application/json").json()["memory"][
        "id"
    ]
    api.get(f"/api/memories/{memory_id}")
    _flushed()

    text = alice_client.get(f"/settings/memories/{memory_id}/history", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert used in text and created in text
    assert text.count('translate="no">laptop script</span>') == 2  # the read and the creation, by name
    assert "API" not in text.split("aria-label")[1]  # the program, not the generic actor


def test_app_activity_lists_and_filters_a_programs_records_and_no_one_elses(api, token, alice, alice_client, bob):
    _flushed()
    other = create_token(alice, "phone shortcut")
    phone = Client(HTTP_AUTHORIZATION=f"Bearer {other[1]}")
    mine = api.post("/api/memories", {"content": "Our wifi is on the 5 GHz band"}, "application/json").json()
    phone.get(f"/api/memories/{mine['memory']['id']}")
    bobs_api = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(bob, 'bob script')[1]}")
    bobs_api.post("/api/memories", {"content": "Bob keeps bees on his roof"}, "application/json")
    _flushed()

    everything = alice_client.get("/settings/activity").content.decode()
    assert "Our wifi is on the 5 GHz band" in everything
    assert "laptop script" in everything and "phone shortcut" in everything
    assert "bees" not in everything and "bob script" not in everything

    laptop_only = alice_client.get(f"/settings/activity?client={_key(token)}").content.decode()
    assert "created" in laptop_only and "used it" not in laptop_only
    reads = alice_client.get(f"/settings/activity?client={_key(other)}&kind=reads").content.decode()
    assert "used it" in reads and "created" not in reads
    changes = alice_client.get(f"/settings/activity?client={_key(other)}&kind=changes").content.decode()
    assert 'id="activity-empty"' in changes

    bobs_key = MemoryEvent.objects.filter(user=bob).first().client
    assert bobs_key.startswith("token:")
    nothing = alice_client.get(f"/settings/activity?client={bobs_key}").content.decode()
    assert 'id="activity-empty"' in nothing and "bees" not in nothing  # another's program: nothing of theirs
    chinese = alice_client.get("/settings/activity", HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert "应用活动" in chinese and "使用了它" in chinese


def test_read_records_go_after_the_retention_and_with_the_memory(api, token, alice, settings):
    _flushed()
    kept = write.add_memory(alice, "I run 5 km on Sundays").memory
    purged = write.add_memory(alice, "我对花粉过敏").memory
    api.get(f"/api/memories/{kept.pk}")
    api.get(f"/api/memories/{purged.pk}")
    _flushed()
    settings.ACCESS_RECORD_DAYS = 90
    MemoryEvent.objects.filter(memory_ref=kept.pk, action=EventAction.ACCESSED).update(
        created_at=timezone.now() - timedelta(days=91)
    )

    assert access.drop_old_read_records() == 1
    assert _reads(kept) == [] and MemoryEvent.objects.filter(memory_ref=kept.pk, action="created").exists()
    assert len(_reads(purged)) == 1  # a fresh one stays

    assert api.post(f"/api/memories/{purged.pk}/purge").status_code == 200
    assert not MemoryEvent.objects.filter(memory_ref=purged.pk).exclude(action=EventAction.PURGED).exists()


def test_a_chat_turn_through_the_api_records_the_token_on_what_it_used(api, token, alice):
    memory = write.add_memory(alice, "My daughter Emma is allergic to peanuts").memory
    _flushed()
    chat = api.post("/api/conversations", {"title": "Birthday cake ideas"}, "application/json").json()
    answer = api.post(
        f"/api/conversations/{chat['id']}/messages",
        {"content": "Which cake can I bake for my daughter's party?"},
        "application/json",
    )
    assert answer.status_code == 201 and memory.pk in answer.json()["reply"]["used"]
    _flushed()
    (read,) = _reads(memory)
    assert (read.client, read.after["uses"], read.after["conversations"]) == (_key(token), 1, [chat["id"]])
