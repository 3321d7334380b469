"""Graph recall on the rules-built graph (memoryapp/graph/walk.py): a rare entity the query names leads to
memories one and two hops away; an entity most memories name (a hub) leads nowhere, so a question about
it is not flooded with every memory that names it."""

from __future__ import annotations

import pytest

from memoryapp.graph import search_memory_ids
from memoryapp.providers.embeddings import get_embedder
from tasks import graph_sync as graph_tasks

from .conftest import make_memory

pytestmark = pytest.mark.integration

ABOUT_ANNA = [
    "My sister Anna loves hiking in the Alps",
    "My sister Anna is a nurse",
    "My sister Anna has two cats",
    "My sister Anna plays the cello",
    "My sister Anna moved to a new flat",
    "My sister Anna hates coriander",
    "My sister Anna reads crime novels",
    "My sister Anna drives an old van",
    "My sister Anna bakes sourdough",
    "My sister Anna visits every Christmas",
]


def remember(user, content: str):
    memory = make_memory(user, content, embedding=get_embedder().embed_one(content))
    assert graph_tasks.sync_memory(memory.pk) == "synced"
    return memory


def test_it_walks_two_hops_through_a_rare_entity_but_never_through_a_hub(alice, no_model):
    anna = [remember(alice, text) for text in ABOUT_ANNA]
    flatmates = remember(alice, "Priya Sharma shares a flat with Tomas Berg and my sister Anna")
    job = remember(alice, "Tomas Berg started a new job at Globex last spring")

    found = [mid for mid, _ in search_memory_ids(alice.pk, "Who does Priya Sharma live with?", limit=10, timeout_s=10)]

    assert found[:1] == [flatmates.pk]  # on the named entity: first
    assert job.pk in found  # through Tomas Berg, whom only two memories name
    assert not {m.pk for m in anna} & set(found)  # not through Anna, whom most memories name


def test_it_adds_nothing_when_the_query_names_only_a_hub(alice, no_model):
    for text in ABOUT_ANNA:
        remember(alice, text)
    remember(alice, "Tomas Berg started a new job at Globex last spring")

    assert search_memory_ids(alice.pk, "What does my sister Anna do at the weekend?", limit=10, timeout_s=10) == []
