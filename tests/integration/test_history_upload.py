"""An export sent by the memories page in parts (memoryapp/web/history.py): the parts land in order, a lost
answer's part sent again lands where it did, a gap is refused, a token is its user's own; the last part
previews the whole file as a form's upload does."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from memoryapp.pipeline.models import HistoryImport

pytestmark = pytest.mark.django_db

EXPORT = Path(__file__).parents[1] / "unit" / "engine" / "history_exports" / "claude_conversations.json"


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _part(client: Client, token: str, offset: int, data: bytes):
    url = f"/settings/memories/history/parts{'/' + token if token else ''}?offset={offset}"
    return client.post(url, data, content_type="application/octet-stream")


def test_an_export_sent_in_parts_is_previewed_whole(alice, bob):
    body = EXPORT.read_bytes()
    api = _client(alice)
    first = _part(api, "", 0, body[:1000])
    assert first.status_code == 200 and first.json()["size"] == 1000
    token = first.json()["token"]
    assert _part(api, token, 5000, body[1000:2000]).status_code == 409  # a gap: refused
    assert _part(_client(bob), token, 1000, body[1000:]).status_code == 404  # not bob's upload
    assert _part(api, token, 1000, body[1000:]).json()["size"] == len(body)
    assert _part(api, token, 1000, body[1000:]).json()["size"] == len(body)  # sent again: the same file

    done = api.post(f"/settings/memories/history/parts/{token}/done", {"name": "conversations.json"})

    job = HistoryImport.objects.get(user=alice)
    assert done.json() == {"preview": f"/settings/memories/history/{job.pk}"}
    assert (job.format, job.name, len(job.rows)) == ("claude", "conversations.json", 3)
    assert api.get(done.json()["preview"]).status_code == 200
    assert _client(bob).get(done.json()["preview"]).status_code == 404


def test_parts_that_are_not_an_export_say_so_and_nothing_is_kept(alice):
    api = _client(alice)
    token = _part(api, "", 0, b'{"notes": []}').json()["token"]
    done = api.post(f"/settings/memories/history/parts/{token}/done", {"name": "notes.json"})
    assert "neither a ChatGPT nor a Claude export" in done.json()["problem"]
    assert not HistoryImport.objects.exists()
    assert api.post(f"/settings/memories/history/parts/{token}/done", {"name": "notes.json"}).status_code == 404
