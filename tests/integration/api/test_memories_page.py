"""Settings > Memories and Settings without JavaScript: plain GET filters, POST forms, redirects."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from memoryapp.api.auth import hash_token
from memoryapp.engine.memories import imports
from memoryapp.engine.memories.write import add_memory, supersede_memory
from memoryapp.models import ApiToken, Memory, MemoryEvent, MemorySettings
from memoryapp.pipeline.models import ImportJob

pytestmark = pytest.mark.django_db


def test_it_lists_and_filters_by_type(alice_client, alice):
    add_memory(alice, "Prefers dark mode", kind="preference", importance=0.7)
    add_memory(alice, "Is learning Rust", kind="goal")
    page = alice_client.get("/settings/memories").content.decode()
    assert "Prefers dark mode" in page and "Is learning Rust" in page and "70%" in page
    page = alice_client.get("/settings/memories?kind=goal").content.decode()
    assert "Is learning Rust" in page and "Prefers dark mode" not in page


def test_it_ignores_bad_filter_values(alice_client, alice):
    add_memory(alice, "Drinks green tea")
    response = alice_client.get("/settings/memories?kind=bogus&range=forever&cursor=%%%")
    assert response.status_code == 200


def test_it_deletes_and_restores_without_javascript(alice_client, alice):
    memory = add_memory(alice, "Plays chess on Sundays").memory
    response = alice_client.post(f"/settings/memories/{memory.pk}/delete", {"next": "/settings/memories"})
    assert response.status_code == 302
    assert "Plays chess" not in alice_client.get("/settings/memories").content.decode()
    assert "Plays chess" in alice_client.get("/settings/memories?status=deleted").content.decode()
    alice_client.post(f"/settings/memories/{memory.pk}/restore")
    memory.refresh_from_db()
    assert memory.status == "active"


def test_it_sends_the_counts_with_each_change_and_counts_only_the_callers(alice_client, alice, bob):
    memory = add_memory(alice, "Plays chess on Sundays").memory
    add_memory(bob, "Collects stamps")
    add_memory(bob, "Rows at dawn")
    reply = alice_client.post(f"/settings/memories/{memory.pk}/delete", HTTP_HX_REQUEST="true").content.decode()
    assert f'id="memory-{memory.pk}"' in reply
    counts = reply[reply.index('id="mem-stats"') :]
    assert 'hx-swap-oob="true"' in counts and "Active 0" in counts and "Deleted 1" in counts
    fragment = alice_client.get("/settings/memories/stats", HTTP_HX_REQUEST="true").content.decode()
    assert "Active 0" in fragment and "Deleted 1" in fragment and "hx-swap-oob" not in fragment
    assert Client().get("/settings/memories/stats").status_code == 302  # to the login page


def test_it_undoes_a_change_putting_back_the_version_it_replaced(alice_client, alice, bob):
    old = add_memory(alice, "Prefers Vue 3 for frontend work").memory
    new = supersede_memory(old, "Prefers React for frontend work").memory
    page = alice_client.get("/settings/memories").content.decode()
    assert f"/settings/memories/{new.pk}/revert" in page  # a changed memory offers the undo
    assert Client().post(f"/settings/memories/{new.pk}/revert").status_code == 302  # to the login page
    bob_client = Client()
    bob_client.force_login(bob)
    assert bob_client.post(f"/settings/memories/{new.pk}/revert").status_code == 404
    reply = alice_client.post(f"/settings/memories/{new.pk}/revert", HTTP_HX_REQUEST="true").content.decode()
    assert f'id="memory-{old.pk}"' in reply and "Prefers Vue 3" in reply  # in the changed card's place
    old.refresh_from_db()
    new.refresh_from_db()
    assert old.is_current and new.status == "deleted"
    page = alice_client.get("/settings/memories").content.decode()
    assert "Prefers Vue 3" in page and "Prefers React" not in page


def test_it_clears_all_and_undoes(alice_client, alice):
    for text in ("Fact one about apples", "Fact two about the sea"):
        add_memory(alice, text)
    alice_client.post("/settings/memories/clear")
    page = alice_client.get("/settings/memories").content.decode()
    assert "2 memories were cleared" in page and "apples" not in page
    alice_client.post("/settings/memories/clear/undo")
    assert Memory.objects.filter(user=alice, status="active").count() == 2


def test_it_edits_as_a_new_version(alice_client, alice):
    memory = add_memory(alice, "Lives in Oslo").memory
    alice_client.post(
        f"/settings/memories/{memory.pk}/edit", {"content": "Lives in Bergen", "kind": "fact", "importance": 60}
    )
    page = alice_client.get("/settings/memories").content.decode()
    assert "Lives in Bergen" in page and "Lives in Oslo" not in page
    history = alice_client.get(f"/settings/memories/{memory.pk}/history").content.decode()
    assert "Superseded" in history


def test_it_keeps_the_used_count_through_an_edit(alice_client, alice):
    memory = add_memory(alice, "Lives in Oslo").memory
    used_at = timezone.now() - timedelta(days=2)
    Memory.objects.filter(pk=memory.pk).update(access_count=7, last_accessed_at=used_at)
    alice_client.post(
        f"/settings/memories/{memory.pk}/edit", {"content": "Lives in Bergen", "kind": "fact", "importance": 60}
    )
    edited = Memory.objects.get(user=alice, content="Lives in Bergen")
    assert (edited.access_count, edited.last_accessed_at) == (7, used_at)
    assert "Used 7 times" in alice_client.get("/settings/memories").content.decode()


def test_it_reports_every_bad_row_and_imports_nothing(alice_client, alice):
    rows = [{"content": "fine"}, {"content": "x", "importance": 3}]
    upload = SimpleUploadedFile("m.json", json.dumps({"memories": rows}).encode(), "application/json")
    response = alice_client.post("/settings/memories/import", {"file": upload})
    assert response.status_code == 422
    assert "Row 2" in response.content.decode() and not Memory.objects.filter(user=alice).exists()


def test_a_good_import_is_queued_and_the_page_waits_for_its_report(alice_client, alice):
    upload = SimpleUploadedFile(
        "m.json", json.dumps({"memories": [{"content": "Plays the cello"}]}).encode(), "application/json"
    )
    response = alice_client.post("/settings/memories/import", {"file": upload}, HTTP_HX_REQUEST="true")
    assert response.status_code == 202 and "Importing 1 memory" in response.content.decode()
    job = ImportJob.objects.get(user=alice)
    assert job.status == "queued" and not Memory.objects.filter(user=alice).exists()
    polled = alice_client.get(f"/settings/memories/import/{job.pk}").content.decode()
    assert "Importing 1 memory" in polled and "every 2s" in polled  # asks again until the job is done
    imports.run_import(job.pk)  # the worker's part, once the request has committed
    assert Memory.objects.get(user=alice).content == "Plays the cello"
    polled = alice_client.get(f"/settings/memories/import/{job.pk}").content.decode()
    assert "Imported 1 memory." in polled and "every 2s" not in polled


def test_another_users_import_job_is_not_found(alice, bob, client):
    job = imports.queue_import(alice, [{"content": "Plays the cello"}]).job
    client.force_login(bob)
    assert client.get(f"/settings/memories/import/{job.pk}").status_code == 404


def test_it_exports_json_and_markdown_and_records_each_export(alice_client, alice):
    memory = add_memory(alice, "Has two sisters").memory
    data = json.loads(alice_client.get("/settings/memories/export?format=json").content)
    assert data["memories"][0]["content"] == "Has two sisters"
    assert "Has two sisters" in alice_client.get("/settings/memories/export?format=markdown").content.decode()
    exports = MemoryEvent.objects.filter(memory_ref=memory.pk, action="exported").order_by("id")
    assert [(e.actor, e.note) for e in exports] == [("user", "json"), ("user", "markdown")]


def test_it_highlights_the_focused_memory(alice_client, alice):
    memory = add_memory(alice, "Favourite colour is teal").memory
    page = alice_client.get(f"/settings/memories?focus={memory.pk}").content.decode()
    assert f'id="memory-{memory.pk}" class="memory-card status-active focus"' in page


def test_it_saves_settings(alice_client, alice):
    response = alice_client.post(
        "/settings/",
        {"save_settings": "1", "memory_enabled": "on", "extract_every_n_turns": "7", "language": "zh-hans"},
    )
    assert response.status_code == 302
    prefs = MemorySettings.for_user(alice)
    assert (prefs.auto_extract, prefs.extract_every_n_turns, prefs.language) == (False, 7, "zh-hans")
    assert response.cookies["django_language"].value == "zh-hans"


def test_it_shows_a_new_token_once_stores_only_its_hash_and_revokes(alice_client, alice):
    page = alice_client.post("/settings/", {"create_token": "1", "name": "laptop"}).content.decode()
    secret = page.split('id="new-token">')[1].split("<")[0]
    token = ApiToken.objects.get(user=alice)
    assert token.token_hash == hash_token(secret) and secret not in str(token.__dict__)
    assert alice_client.get("/api/memories", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    assert secret not in alice_client.get("/settings/").content.decode()
    alice_client.post("/settings/", {"revoke_token": str(token.pk)})
    alice_client.logout()
    assert alice_client.get("/api/memories", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 401


def test_it_speaks_chinese(alice_client, alice):
    add_memory(alice, "喜欢喝乌龙茶", kind="preference")
    page = alice_client.get("/settings/memories", HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert "全部清除" in page and "偏好" in page and "喜欢喝乌龙茶" in page


@pytest.mark.parametrize(("related", "unrelated"), [("绿茶", "火山爆发的原理"), ("tea", "quantum physics homework")])
def test_it_says_nothing_matched_instead_of_listing_unrelated_memories(alice_client, alice, related, unrelated):
    add_memory(alice, "用户不喝咖啡，只喝龙井绿茶。", kind="preference")
    add_memory(alice, "I drink green tea every morning", kind="preference")
    add_memory(alice, "Is learning Rust", kind="goal")
    page = alice_client.get("/settings/memories", {"q": unrelated}).content.decode()
    assert "No memories match your search." in page and "Is learning Rust" not in page
    page = alice_client.get("/settings/memories", {"q": related}).content.decode()
    assert "No memories match your search." not in page and "Is learning Rust" not in page
    assert "绿茶" in page or "green tea" in page


def test_it_lists_chat_episodes_apart_from_saved_memories_with_their_counts(alice_client, alice, api):
    """As chat history is kept apart from saved memories: the page lists saved memories, episodes have
    their own tab (聊天经过), a search looks through both, and the API still lists every kind."""
    add_memory(alice, "Prefers dark mode", kind="preference")
    add_memory(alice, "Is learning Rust", kind="goal")
    add_memory(
        alice, "[2026-11-21 10:00] We decided to move the staging stack to Kubernetes next week.", kind="episode"
    )

    saved = alice_client.get("/settings/memories").content.decode()
    assert "Prefers dark mode" in saved and "Is learning Rust" in saved and "staging stack" not in saved
    assert '<strong id="stat-total">2</strong>' in saved and '<strong id="stat-episodes">1</strong>' in saved
    assert 'id="tab-episodes"' in saved and "Chat episodes" in saved

    episodes = alice_client.get("/settings/memories?kind=episode").content.decode()
    assert "staging stack" in episodes and "Prefers dark mode" not in episodes

    found = alice_client.get("/settings/memories", {"q": "Kubernetes staging"}).content.decode()
    assert "staging stack" in found

    assert len(api.get("/memories").json()["items"]) == 3  # the API: every kind, as before

    chinese = alice_client.get("/settings/memories", HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert "聊天经过" in chinese


def test_a_chinese_page_shows_a_memorys_history_and_the_markdown_export_in_chinese(alice_client, alice):
    old = add_memory(alice, "Lives in Paris").memory
    new = supersede_memory(old, "Lives in Lyon", actor="user").memory
    zh = {"HTTP_ACCEPT_LANGUAGE": "zh-Hans"}

    history = alice_client.get(f"/settings/memories/{new.pk}/history", **zh).content.decode()
    older = alice_client.get(f"/settings/memories/{old.pk}/history", **zh).content.decode()
    export = alice_client.get("/settings/memories/export?format=markdown", **zh).content.decode()

    assert f"取代 #{old.pk}" in history and "replaces #" not in history
    assert f"被 #{new.pk} 取代" in older and "replaced by #" not in older
    assert export.startswith("# 记忆") and "导出于" in export and "重要性 " in export
    assert "Exported" not in export and "importance" not in export
