"""The chat's "Keeping in mind" panel (its working memory, engine/chat_state): shown on the chat page, edited
by hand with and without htmx, scoped to the owner's chat, refusals as a sentence in the form, Redis down as
one line while the chat works; a chat's entries go with the chat."""

from __future__ import annotations

import json
import socket

import pytest
import redis
from django.test import override_settings

from conversations.models import Conversation, Message
from memoryapp.engine.chat_state import store
from memoryapp.engine.memories.purge import purge_all

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def _clean_store(alice, bob):
    for user in (alice, bob):  # ids come back in a later session's fresh database; entries live a day
        store.clear_user(user.pk)
    yield
    for user in (alice, bob):
        store.clear_user(user.pk)


@pytest.fixture
def chat(alice):
    conversation = Conversation.objects.create(user=alice, title="Lisbon trip")
    Message.objects.create(conversation=conversation, role="user", content="Plan a trip to Lisbon")
    return conversation


@pytest.fixture
def redis_down():
    """The store pointed at a port nothing listens on: every read and write is ChatStateUnavailable (the
    suite's own Redis stays up for the rest of the test)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    kept = store._client
    store._client = redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1)
    yield
    store._client = kept


def _entries(user, conversation) -> dict:
    return {entry.key: entry.value for entry in store.entries(user.pk, store.chat_session(conversation.pk))}


def test_it_shows_the_empty_panel_with_its_hint(alice_client, chat):
    page = alice_client.get(f"/c/{chat.pk}/").content.decode()
    assert "Keeping in mind for this chat" in page
    assert "Nothing yet: details of the task at hand (dates, places, budget) appear here as you chat." in page


def test_it_shows_the_panel_in_chinese(alice_client, alice, chat):
    store.put(alice.pk, store.chat_session(chat.pk), {"budget": "1200 欧元"}, by="chat")
    page = alice_client.get(f"/c/{chat.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "本次对话记着的事" in page and "预算" in page and "1200 欧元" in page
    store.clear(alice.pk, store.chat_session(chat.pk))
    page = alice_client.get(f"/c/{chat.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "还没有：聊天时，手头任务的细节（日期、地点、预算）会出现在这里。" in page


def test_it_lists_each_entry_by_its_label_with_its_value_compact(alice_client, alice, chat):
    store.put(
        alice.pk,
        store.chat_session(chat.pk),
        {
            "destination": "Lisbon",
            "dates": {"from": "May 2", "to": "May 5"},
            "people": 2,
            "hotel wishes": ["quiet", "pool"],
        },
        by="chat",
    )
    page = alice_client.get(f"/c/{chat.pk}/").content.decode()
    assert '<span class="state-label">Destination</span>' in page
    assert '<span class="state-value" translate="no">Lisbon</span>' in page
    assert '<span class="state-value" translate="no">from: May 2, to: May 5</span>' in page
    assert '<span class="state-value" translate="no">2</span>' in page
    assert '<span class="state-label" translate="no">hotel wishes</span>' in page  # the user's own words
    assert '<span class="state-value" translate="no">quiet, pool</span>' in page
    assert "(4)" in page  # the count beside the title
    # Each edit box holds what saves the value unchanged: JSON where it is not plain text.
    assert "&quot;from&quot;: &quot;May 2&quot;" in page


def test_it_adds_an_entry_without_javascript_and_comes_back_to_the_chat(alice_client, alice, chat):
    response = alice_client.post(f"/c/{chat.pk}/keeping/", {"form": "add", "key": "budget", "value": "1200 EUR"})
    assert response.status_code == 302 and response["Location"] == f"/c/{chat.pk}/#chat-state"
    entry = store.get(alice.pk, store.chat_session(chat.pk), "budget")
    assert entry.value == "1200 EUR" and entry.by == "you"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ('{"from": "Berlin", "to": "Rome"}', {"from": "Berlin", "to": "Rome"}),
        ("[1, 2]", [1, 2]),
        ("42", 42),
        ('"42"', "42"),
        ("two adults, one child", "two adults, one child"),
        ("null", "null"),
    ],
)
def test_it_keeps_text_that_reads_as_json_as_that_json(alice_client, alice, chat, typed, kept):
    alice_client.post(f"/c/{chat.pk}/keeping/", {"form": "add", "key": "note", "value": typed}, **HTMX)
    assert _entries(alice, chat) == {"note": kept}


def test_it_adds_edits_removes_and_clears_with_htmx(alice_client, alice, chat):
    fragment = alice_client.post(
        f"/c/{chat.pk}/keeping/", {"form": "add", "key": "destination", "value": "Lisbon"}, **HTMX
    ).content.decode()
    assert fragment.startswith('<div id="chat-state-body"') and "Lisbon" in fragment
    assert '<span id="chat-state-count" class="state-count" hx-swap-oob="true"> (1)</span>' in fragment

    alice_client.post(f"/c/{chat.pk}/keeping/", {"form": "edit", "key": "destination", "value": "Porto"}, **HTMX)
    alice_client.post(f"/c/{chat.pk}/keeping/", {"form": "add", "key": "date", "value": "May 2"}, **HTMX)
    assert _entries(alice, chat) == {"destination": "Porto", "date": "May 2"}

    fragment = alice_client.post(f"/c/{chat.pk}/keeping/remove/", {"key": "destination"}, **HTMX).content.decode()
    assert "Porto" not in fragment and "May 2" in fragment
    assert _entries(alice, chat) == {"date": "May 2"}

    fragment = alice_client.post(f"/c/{chat.pk}/keeping/clear/", **HTMX).content.decode()
    assert "Nothing yet" in fragment and _entries(alice, chat) == {}


def test_it_removes_and_clears_without_javascript(alice_client, alice, chat):
    store.put(alice.pk, store.chat_session(chat.pk), {"a": 1, "b": 2}, by="chat")
    assert alice_client.post(f"/c/{chat.pk}/keeping/remove/", {"key": "a"}).status_code == 302
    assert _entries(alice, chat) == {"b": 2}
    assert alice_client.post(f"/c/{chat.pk}/keeping/clear/").status_code == 302
    assert _entries(alice, chat) == {}


def test_it_answers_404_for_another_users_chat_and_touches_nothing(client, alice, bob, chat):
    store.put(alice.pk, store.chat_session(chat.pk), {"budget": 1200}, by="chat")
    client.force_login(bob)
    assert client.post(f"/c/{chat.pk}/keeping/", {"form": "add", "key": "budget", "value": "0"}).status_code == 404
    assert client.post(f"/c/{chat.pk}/keeping/remove/", {"key": "budget"}).status_code == 404
    assert client.post(f"/c/{chat.pk}/keeping/clear/").status_code == 404
    assert _entries(alice, chat) == {"budget": 1200}
    assert store.entries(bob.pk, store.chat_session(chat.pk)) == []


def test_it_refuses_get(alice_client, chat):
    assert alice_client.get(f"/c/{chat.pk}/keeping/").status_code == 405


def test_it_says_why_a_name_is_refused_in_the_form(alice_client, alice, chat):
    fragment = alice_client.post(
        f"/c/{chat.pk}/keeping/", {"form": "add", "key": "from/to", "value": "x"}, **HTMX
    ).content.decode()
    assert "without / or control characters" in fragment and 'role="alert"' in fragment
    assert 'value="from/to"' in fragment  # what was typed stays in the open form
    assert _entries(alice, chat) == {}
    page = alice_client.post(f"/c/{chat.pk}/keeping/", {"form": "add", "key": "from/to", "value": "x"})
    assert page.status_code == 400 and "without / or control characters" in page.content.decode()


def test_it_says_an_empty_value_is_refused(alice_client, alice, chat):
    store.put(alice.pk, store.chat_session(chat.pk), {"budget": 1200}, by="chat")
    fragment = alice_client.post(
        f"/c/{chat.pk}/keeping/", {"form": "edit", "key": "budget", "value": "  "}, **HTMX
    ).content.decode()
    assert "This field is required." in fragment and '<details class="state-edit" open>' in fragment
    assert _entries(alice, chat) == {"budget": 1200}


@override_settings(WORKING_MEMORY_MAX_ENTRIES=1)
def test_it_says_when_the_chat_keeps_no_more(alice_client, alice, chat):
    store.put(alice.pk, store.chat_session(chat.pk), {"budget": 1200}, by="chat")
    fragment = alice_client.post(
        f"/c/{chat.pk}/keeping/", {"form": "add", "key": "date", "value": "May 2"}, **HTMX
    ).content.decode()
    assert "This chat keeps at most 1 entries: remove one first." in fragment
    fragment = alice_client.post(
        f"/c/{chat.pk}/keeping/", {"form": "edit", "key": "budget", "value": "x" * 3000}, **HTMX
    ).content.decode()
    assert "That is more than this chat can keep in mind" in fragment
    assert _entries(alice, chat) == {"budget": 1200}


def test_the_refusals_read_in_chinese(alice_client, chat):
    fragment = alice_client.post(
        f"/c/{chat.pk}/keeping/",
        {"form": "add", "key": "from/to", "value": "x"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
        **HTMX,
    ).content.decode()
    assert "不能含有 / 或控制字符" in fragment


def test_with_redis_down_the_panel_says_so_and_the_chat_answers(alice_client, chat, redis_down):
    page = alice_client.get(f"/c/{chat.pk}/")
    assert page.status_code == 200
    assert "Not available right now." in page.content.decode() and "Plan a trip to Lisbon" in page.content.decode()
    assert alice_client.get("/").status_code == 200
    fragment = alice_client.post(f"/c/{chat.pk}/keeping/", {"form": "add", "key": "a", "value": "b"}, **HTMX)
    assert fragment.status_code == 200 and "Not available right now." in fragment.content.decode()
    assert alice_client.post(f"/c/{chat.pk}/keeping/clear/", **HTMX).status_code == 200
    plain = alice_client.post(f"/c/{chat.pk}/keeping/remove/", {"key": "a"})
    assert plain.status_code == 400 and "Not available right now." in plain.content.decode()


# A chat's entries go with the chat (engine/chat_state/ending.py).


@pytest.mark.django_db(transaction=True)
def test_deleting_a_chat_clears_what_it_kept_in_mind(alice_client, alice, chat):
    store.put(alice.pk, store.chat_session(chat.pk), {"budget": 1200}, by="chat")
    assert alice_client.post(f"/c/{chat.pk}/delete/").status_code == 302
    assert store.entries(alice.pk, store.chat_session(chat.pk)) == []


@pytest.mark.django_db(transaction=True)
def test_a_temporary_chat_discarded_takes_its_entries_with_it(alice_client, alice):
    temporary = Conversation.objects.create(user=alice, temporary=True)
    store.put(alice.pk, store.chat_session(temporary.pk), {"budget": 1200}, by="chat")
    alice_client.get("/")  # opening another chat discards the temporary one no tab shows
    assert not Conversation.objects.filter(pk=temporary.pk).exists()
    assert store.entries(alice.pk, store.chat_session(temporary.pk)) == []


@pytest.mark.django_db(transaction=True)
def test_a_chat_deleted_while_redis_is_down_is_still_deleted(alice_client, chat, redis_down):
    assert alice_client.post(f"/c/{chat.pk}/delete/").status_code == 302
    assert not Conversation.objects.filter(pk=chat.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_deleting_all_forever_clears_every_session_of_the_user(alice, bob, chat):
    store.put(alice.pk, store.chat_session(chat.pk), {"budget": 1200}, by="chat")
    store.put(alice.pk, store.program_session("claude-1"), {"task": "pack"}, by="token:1")
    store.put(bob.pk, store.program_session("claude-1"), {"task": "his"}, by="token:2")
    purge_all(alice)
    assert store.entries(alice.pk, store.chat_session(chat.pk)) == []
    assert store.entries(alice.pk, store.program_session("claude-1")) == []
    assert json.dumps([e.value for e in store.entries(bob.pk, store.program_session("claude-1"))]) == '["his"]'


# Live: every tab of the chat redraws its list (memoryapp/web/consumers.py, `chat_state`).


@pytest.mark.django_db(transaction=True)
async def test_a_change_redraws_the_list_in_the_chats_tabs_only(alice, bob):
    from asgiref.sync import sync_to_async

    from tests.support.sockets import app_socket

    here, there = await sync_to_async(lambda: [Conversation.objects.create(user=alice) for _ in "ab"])()
    tab = app_socket(f"/ws/memories/?conversation={here.pk}&lang=zh-hans", alice)
    other_chat = app_socket(f"/ws/memories/?conversation={there.pk}", alice)
    bobs = app_socket(f"/ws/memories/?conversation={here.pk}", bob)
    for socket_ in (tab, other_chat, bobs):
        assert (await socket_.connect())[0]
    try:
        await sync_to_async(store.put)(alice.pk, store.chat_session(here.pk), {"budget": "1200 欧元"}, by="api")
        frame = await tab.receive_from(timeout=5)
        assert '<div id="chat-state-list" class="state-list" hx-swap-oob="true">' in frame
        assert "预算" in frame and "1200 欧元" in frame  # in the tab's language
        assert '<span id="chat-state-count" class="state-count" hx-swap-oob="true"> (1)</span>' in frame
        assert await other_chat.receive_nothing(timeout=0.5)
        assert await bobs.receive_nothing(timeout=0.2)
        await sync_to_async(store.clear)(alice.pk, store.chat_session(here.pk))
        assert "还没有" in await tab.receive_from(timeout=5)
    finally:
        for socket_ in (tab, other_chat, bobs):
            await socket_.disconnect()
