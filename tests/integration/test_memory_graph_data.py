"""The memory graph page's data (/settings/memories/graph/data): what the rows say, the user's own only."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from conversations.models import Conversation
from memoryapp.engine.memories import write
from tests.support.sockets import app_socket

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/settings/memories/graph/data"


def _graph(client) -> dict:
    response = client.get(URL)
    assert response.status_code == 200
    return response.json()


def test_it_draws_versions_chats_and_shared_names_of_the_users_own_memories(alice, bob, client):
    chat = Conversation.objects.create(user=alice, title="Moving house")
    old = write.add_memory(alice, "Lives in Hamburg near the harbour").memory
    new = write.edit_memory(old, {"content": "Lives in Leipzig near the Zoo"}).memory
    work = write.add_memory(alice, "Teaches piano at a school in Leipzig", source_conversation_id=chat.pk).memory
    gone = write.add_memory(alice, "Has a cat in Leipzig").memory
    write.delete_memory(gone)
    write.add_memory(bob, "Bob runs a bakery in Leipzig")
    client.force_login(alice)

    data = _graph(client)

    memories = {m["pk"]: m for m in data["memories"]}
    assert set(memories) == {old.pk, new.pk, work.pk}  # deleted and other users' memories are not drawn
    assert memories[old.pk]["until"] is not None and memories[new.pk]["until"] is None  # replaced, current
    links = {tuple(link) for link in data["links"]}
    assert (f"m{new.pk}", f"m{old.pk}", "supersedes") in links
    assert (f"m{work.pk}", f"c{chat.pk}", "chat") in links
    assert data["chats"] == [{"id": f"c{chat.pk}", "pk": chat.pk, "title": "Moving house"}]
    # Leipzig joins two different memories; Hamburg is only in one memory's versions, so it joins nothing.
    assert [n["name"] for n in data["names"]] == ["Leipzig"]
    assert {source for source, target, _ in data["links"] if target == "n:Leipzig"} == {f"m{new.pk}", f"m{work.pk}"}
    # The default install's graph is built without a model (GRAPH_EXTRACTION=rules), so the page asks it;
    # what it draws from it: tests/integration/graph/test_graph_page_entities.py.
    assert data["graph"] == "on"


def test_a_visitor_is_sent_to_log_in(client):
    response = client.get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


async def test_the_graph_page_hears_a_change_as_one_mark_not_a_card(alice):
    socket = app_socket("/ws/memories/?view=graph&lang=en", alice)
    assert (await socket.connect())[0]
    try:
        tea = await sync_to_async(lambda: write.add_memory(alice, "I like green tea").memory)()
        frame = await socket.receive_from(timeout=5)
        assert frame.startswith('<span id="graph-live" hx-swap-oob="true"') and f'data-memory="{tea.pk}"' in frame
        assert "green tea" not in frame  # no card: the page fetches the graph again
    finally:
        await socket.disconnect()
