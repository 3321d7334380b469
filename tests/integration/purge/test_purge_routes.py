"""Delete forever through the API and the memories page: confirmation first, 404 for others' memories."""

from __future__ import annotations

import pytest
from django.test import Client

from memoryapp.api.auth import create_token
from memoryapp.engine.memories import write
from memoryapp.models import Memory
from tests.support.leaks import columns_holding

pytestmark = pytest.mark.django_db


def _bearer(user) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {create_token(user, 'tests')[1]}"}


def test_it_purges_through_the_api(client: Client, alice):
    memory = write.add_memory(alice, "Zanzibar-quokka-8812 我的秘密").memory

    response = client.post(f"/api/memories/{memory.pk}/purge", **_bearer(alice))

    assert response.status_code == 200, response.content
    assert response.json() == {"purged": [memory.pk]}
    assert columns_holding("zanzibar", "秘密") == []
    assert client.get(f"/api/memories/{memory.pk}", **_bearer(alice)).status_code == 404
    assert client.post(f"/api/memories/{memory.pk}/purge", **_bearer(alice)).status_code == 404


def test_it_answers_404_for_another_users_memory(client: Client, alice, bob):
    bobs = write.add_memory(bob, "Bob's bank is in Oslo").memory

    response = client.post(f"/api/memories/{bobs.pk}/purge", **_bearer(alice))

    assert response.status_code == 404
    assert response.json() == {"detail": f"memory {bobs.pk} not found"}
    assert Memory.objects.filter(pk=bobs.pk).exists()


def test_the_page_asks_before_it_purges(alice_client: Client, alice):
    memory = write.add_memory(alice, "Zanzibar-quokka-8812 我的秘密").memory
    write.delete_memory(memory)  # from the Deleted filter

    confirm = alice_client.get(f"/settings/memories/{memory.pk}/purge")
    assert confirm.status_code == 200
    assert "Delete forever?" in confirm.content.decode() and Memory.objects.filter(pk=memory.pk).exists()

    response = alice_client.post(f"/settings/memories/{memory.pk}/purge")
    assert response.status_code == 302
    assert not Memory.objects.filter(pk=memory.pk).exists()
    page = alice_client.get("/settings/memories?status=deleted").content.decode()
    assert "The memory was deleted forever." in page and "Zanzibar" not in page


def test_the_page_swaps_the_card_out_with_htmx(alice_client: Client, alice):
    memory = write.add_memory(alice, "Lives in Lisbon").memory

    response = alice_client.post(f"/settings/memories/{memory.pk}/purge", HTTP_HX_REQUEST="true")

    assert response.status_code == 200 and response.content == b""
    assert not Memory.objects.filter(pk=memory.pk).exists()


def test_the_page_answers_404_for_another_users_memory(alice_client: Client, bob):
    bobs = write.add_memory(bob, "Bob's bank is in Oslo").memory

    assert alice_client.get(f"/settings/memories/{bobs.pk}/purge").status_code == 404
    assert alice_client.post(f"/settings/memories/{bobs.pk}/purge").status_code == 404
    assert Memory.objects.filter(pk=bobs.pk).exists()


def test_clear_all_forever_asks_then_removes_everything(alice_client: Client, alice):
    write.add_memory(alice, "Lives in Lisbon")
    gone = write.add_memory(alice, "Zanzibar-quokka-8812 我的秘密").memory
    write.delete_memory(gone)

    assert "All your memories" in alice_client.get("/settings/memories/purge").content.decode()
    assert Memory.objects.filter(user=alice).count() == 2

    response = alice_client.post("/settings/memories/purge", follow=True)

    assert "Deleted 2 memories forever." in response.content.decode()
    assert not Memory.objects.filter(user=alice).exists()
    assert columns_holding("zanzibar", "lisbon") == []


def test_the_page_says_how_long_deleted_memories_are_kept(alice_client: Client, settings):
    settings.DELETED_RETENTION_DAYS = 7
    page = alice_client.get("/settings/memories").content.decode()
    assert "Deleted memories are removed for good after 7 days." in page


def test_it_speaks_chinese(alice_client: Client, alice):
    memory = write.add_memory(alice, "住在上海").memory
    zh = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}

    page = alice_client.get("/settings/memories", **zh).content.decode()
    assert "已删除的记忆会在 30 天后被彻底清除。" in page and "永久删除" in page
    assert "永久删除？" in alice_client.get(f"/settings/memories/{memory.pk}/purge", **zh).content.decode()
    assert "删除我的账户及其全部数据" in alice_client.get("/settings/", **zh).content.decode()
    wrong = alice_client.post("/settings/account/delete", {"password": "nope"}, **zh)
    assert "密码不正确。" in wrong.content.decode()
