"""After `manage.py restore`, the graph is rebuilt from the restored rows: a user's facts are back as they
were, and the graph of an account made after the backup (whose id will be handed out again) is gone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from memoryapp.graph import search_memory_ids, sync
from memoryapp.models import GraphSyncState, Memory

from .conftest import make_memory

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]  # pg_dump reads what is committed

T0 = timezone.now().replace(microsecond=0) - timedelta(days=30)


def facts(graph, user_id: int) -> set[tuple]:
    by_episode = dict(Memory.objects.filter(user_id=user_id).values_list("graph_episode_id", "id"))
    return {
        (f.fact, f.valid_at, f.invalid_at, tuple(sorted(by_episode.get(e, 0) for e in f.episode_ids)))
        for f in graph.facts_of_user(user_id)
    }


def test_restore_rebuilds_the_graph_from_postgres(alice, graph, tmp_path, capsys):
    berlin = make_memory(alice, "I live in Berlin", valid_from=T0)
    sync.sync_memory(berlin.pk)
    before = facts(graph, alice.pk)
    assert before
    path = tmp_path / "graph.dump"
    call_command("backup", str(path))

    graph.drop_user(alice.pk)  # a new FalkorDB, or one that drifted: nothing of alice's is left
    carol = get_user_model().objects.create_user("carol")
    sync.sync_memory(make_memory(carol, "I live in Oslo", valid_from=T0).pk)
    assert facts(graph, carol.pk)

    call_command("restore", str(path), "--yes")

    assert "graph rebuilt from Postgres" in capsys.readouterr().out
    assert facts(graph, alice.pk) == before
    assert set(Memory.objects.values_list("graph_sync_state", flat=True)) == {GraphSyncState.SYNCED}
    assert [m for m, _ in search_memory_ids(alice.pk, "where does User live", limit=5, timeout_s=10)] == [berlin.pk]
    assert graph.facts_of_user(carol.pk) == []  # carol's id is free again: her graph must not greet its next owner
