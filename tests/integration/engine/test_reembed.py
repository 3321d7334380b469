"""`manage.py reembed`: every memory moves to the new model, with progress, resumably, and recall answers
from the old vectors until the switch. The new model is the scripted server's /embeddings at 64-d."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from memoryapp.engine.memories import reembed as reembedding
from memoryapp.engine.memories.write import add_memory, delete_memory
from memoryapp.engine.recall.recall import recall
from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY
from memoryapp.models import Memory
from memoryapp.providers.embeddings import get_embedder

pytestmark = pytest.mark.django_db  # the column changes roll back with the test's transaction

TEA = "I drink green tea every morning"


@pytest.fixture
def memories(alice, bob):
    tea = add_memory(alice, TEA, kind="preference").memory
    add_memory(alice, "Prefers TypeScript for new projects", kind="preference")
    gone = add_memory(bob, "Bob's old address, deleted", kind="fact").memory
    delete_memory(gone)
    return tea


@pytest.fixture
def new_model(settings, llm_server):
    """Call it to switch the settings to the new model (as a user does before `reembed`); returns it."""

    def switch():
        llm_server.state.embedding_dim = 64
        settings.EMBEDDING_PROVIDER = "openai"
        settings.EMBEDDING_BASE_URL = llm_server.url
        settings.OPENAI_API_KEY = "test-key"
        settings.EMBEDDING_DIM = 64
        return get_embedder()

    return switch


def _old_query(text: str) -> list[float]:
    return get_embedder().embed_one(text)


def test_it_moves_every_memory_and_recall_answers_from_the_old_vectors_until_the_switch(alice, memories, new_model):
    old_query = _old_query(TEA)  # embedded by the model the data was written with
    old_dim = reembedding.stored_dimension()
    found_meanwhile = []

    def while_running(done: int, total: int) -> None:
        hits = recall(alice, TEA, config=RECALL_POSTGRES_ONLY, query_vector=old_query, record_access=False)
        found_meanwhile.append(memories.pk in [m.pk for m in hits.memories])

    embedder = new_model()
    report = reembedding.reembed(embedder, batch_size=1, progress=while_running)

    assert report.swapped and report.total == Memory.objects.count() == 3 and report.embedded == 3
    assert len(found_meanwhile) == 4 and all(found_meanwhile)  # before the first batch and after each
    assert old_dim != 64 and reembedding.stored_dimension() == 64
    for memory in Memory.objects.all():  # every user, every status
        assert list(memory.embedding) == pytest.approx(embedder.embed_one(memory.content), abs=1e-3)  # half precision
    assert recall(alice, TEA, config=RECALL_POSTGRES_ONLY, record_access=False).memories[0].pk == memories.pk


def test_an_interrupted_run_resumes_where_it_stopped(memories, new_model):
    embedder = new_model()

    def stop_after_first_batch(done: int, total: int) -> None:
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reembedding.reembed(embedder, batch_size=1, progress=stop_after_first_batch)
    assert reembedding.stored_dimension() != 64  # not switched: recall still reads the old vectors
    report = reembedding.reembed(embedder, batch_size=1)
    assert report.embedded == 2 and report.swapped and reembedding.stored_dimension() == 64


def test_the_command_shows_progress_and_says_what_to_restart_with(memories, new_model):
    out, progress = StringIO(), StringIO()
    new_model()
    call_command("reembed", "--batch-size", "2", stdout=out, stderr=progress)
    assert "3/3" in progress.getvalue() and "100%" in progress.getvalue()
    assert "EMBEDDING_DIM=64" in out.getvalue()


def test_the_cues_vectors_move_to_the_new_model_too(alice, memories, new_model):
    cued = add_memory(
        alice, "Docker builds need HTTPS_PROXY on the office network", cues=["building Docker images", "构建镜像"]
    ).memory
    assert Memory.objects.filter(cues_inferred=True).exists()
    embedder = new_model()
    reembedding.reembed(embedder, batch_size=2)
    cued.refresh_from_db()
    assert list(cued.cue_embedding) == pytest.approx(embedder.embed_one("building Docker images; 构建镜像"), abs=1e-3)
    assert Memory.objects.filter(cue_embedding__isnull=False).count() == 1  # none made up for the rest
    # The others' cues were inferred from the old model's bank: dropped, to be inferred again.
    assert not Memory.objects.filter(cues_inferred=True).exists()
