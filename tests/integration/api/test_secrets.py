"""A secret never becomes a memory, whichever road it takes: the API and the memories page refuse it and say
why, in the user's language; an import names the row and saves nothing; a near miss is saved as usual."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from memoryapp.engine.memories.write import add_memory
from memoryapp.models import Memory

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


def test_it_refuses_a_pin_said_in_words_over_the_api(api, alice):
    response = api.post("/memories", {"content": "my bank PIN is 4821 btw"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": "content looks like it holds a PIN or passcode: passwords, PINs, codes, "
        "keys and ID, passport, card or account numbers are never stored as memories",
        "field": "content",
    }
    assert not Memory.objects.filter(user=alice).exists()


def test_it_refuses_a_payment_password_in_chinese_and_says_why_in_chinese(api, alice):
    response = api.post("/memories", {"content": "支付密码是870412"}, **ZH)
    assert response.status_code == 422
    body = response.json()
    assert body["field"] == "content" and body["detail"].startswith("内容似乎包含密码：")
    assert not Memory.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    "near_miss",
    [
        "I keep everything in 1Password as my password manager",
        "I forgot my password again",
        "办公室打印机的密码贴在墙上",
        "我的护照五月份到期",
    ],
)
def test_it_saves_a_near_miss(api, alice, near_miss):
    response = api.post("/memories", {"content": near_miss})
    assert response.status_code == 201
    assert Memory.objects.get(user=alice).content == near_miss


def test_it_refuses_an_edit_that_adds_a_secret(api, alice):
    memory = add_memory(alice, "Has a bike").memory
    response = api.patch(f"/memories/{memory.pk}", {"content": "the combination for my bike lock is 3-7-1-9"})
    assert response.status_code == 422 and response.json()["field"] == "content"
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["Has a bike"]


def test_it_names_the_row_holding_a_secret_and_imports_nothing(api, alice):
    rows = [{"content": "Plays the cello"}, {"content": "身份证号码 32010619851123401X"}, {"content": "Likes rain"}]
    response = api.post("/memories/import", {"memories": rows})
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [(e["row"], e["field"]) for e in errors] == [(2, "content")]
    assert "an ID number" in errors[0]["reason"]
    assert not Memory.objects.filter(user=alice).exists()


def test_it_refuses_a_secret_hidden_in_an_imported_rows_context(api, alice):
    rows = [{"content": "Banks with ING", "context": "I bank with ING, account number 55779911"}]
    errors = api.post("/memories/import", {"memories": rows}).json()["errors"]
    assert [(e["row"], e["field"]) for e in errors] == [(1, "context")]
    assert not Memory.objects.filter(user=alice).exists()


def test_the_memories_page_shows_why_an_edit_was_refused(alice_client, alice):
    memory = add_memory(alice, "Has a phone").memory
    page = alice_client.post(
        f"/settings/memories/{memory.pk}/edit",
        {"content": "The code for my phone is 1379", "kind": "fact", "importance": 50},
    )
    assert page.status_code == 200
    assert "content looks like it holds a PIN or passcode" in page.content.decode()
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["Has a phone"]


def test_the_memories_page_says_why_in_chinese(alice_client, alice):
    memory = add_memory(alice, "有一张银行卡").memory
    page = alice_client.post(
        f"/settings/memories/{memory.pk}/edit",
        {"content": "我的银行卡密码是482100", "kind": "fact", "importance": 50},
        **ZH,
    )
    assert "内容似乎包含密码" in page.content.decode()
    assert Memory.objects.get(user=alice).content == "有一张银行卡"


def test_the_memories_page_names_the_row_holding_a_secret_and_imports_nothing(alice_client, alice):
    rows = [{"content": "Plays the cello"}, {"content": "passport no. K7654321"}]
    upload = SimpleUploadedFile("m.json", json.dumps({"memories": rows}).encode(), "application/json")
    response = alice_client.post("/settings/memories/import", {"file": upload})
    assert response.status_code == 422
    page = response.content.decode()
    assert "Row 2" in page and "a passport number" in page
    assert not Memory.objects.filter(user=alice).exists()


def test_an_edit_leaves_behind_a_secret_kept_in_the_old_context(alice, api):
    """A memory learnt before secrets were refused can still be edited: its secret context is not copied."""
    memory = add_memory(alice, "Lives in Oslo").memory
    Memory.objects.filter(pk=memory.pk).update(context="I live in Oslo, my PIN is 4821")
    response = api.patch(f"/memories/{memory.pk}", {"content": "Lives in Bergen"})
    assert response.status_code == 200
    assert Memory.objects.get(user=alice, content="Lives in Bergen").context == ""
