"""The import job's run (what the worker calls): all or nothing when the embedder fails midway, and a run
again once it is back writes every row once. The embedder is the scripted server's /embeddings."""

from __future__ import annotations

import pytest

from memoryapp.engine.memories import bulk, imports
from memoryapp.engine.memories.reembed import stored_dimension
from memoryapp.models import Actor, Memory
from memoryapp.pipeline.models import ImportJob
from memoryapp.providers.llm.errors import ProviderError

pytestmark = pytest.mark.django_db(transaction=True)  # the job's one transaction really commits or rolls back


@pytest.fixture
def scripted_embedder(settings, llm_server):
    dim = stored_dimension()
    llm_server.state.embedding_dim = dim
    settings.EMBEDDING_PROVIDER = "openai"
    settings.EMBEDDING_BASE_URL = llm_server.url
    settings.OPENAI_API_KEY = "test-key"
    settings.EMBEDDING_DIM = dim
    return llm_server


def test_an_import_that_fails_midway_writes_nothing_and_a_second_run_writes_it_once(alice, scripted_embedder):
    rows = [{"content": f"Imported fact number {n}", "kind": "fact"} for n in range(bulk.BATCH * 2 + 10)]
    # The job as queue_import keeps it, but not sent to the broker: the session's Celery worker (started by
    # earlier tests) would race this test for it, and win with its own embedder.
    job, errors = imports._new_job(alice, rows, Actor.USER)
    assert job is not None and errors == []
    scripted_embedder.state.embeddings_left = 1  # the first batch is embedded (and written), the second is not

    with pytest.raises(ProviderError, match="embedding endpoint failed"):
        imports.run_import(job.pk)

    job = ImportJob.objects.get(pk=job.pk)
    assert (job.status, job.done) == ("failed", 0) and "nothing was imported" in job.error
    assert not Memory.objects.filter(user=alice).exists()  # the first batch went with the rest

    scripted_embedder.state.embeddings_left = None  # back
    report = imports.run_import(job.pk)  # a re-run (the admin's, from its FailedTask row)
    assert (report.imported, report.duplicates) == (len(rows), 0)
    assert imports.run_import(job.pk).imported == len(rows)  # a redelivered job writes nothing again
    assert Memory.objects.filter(user=alice).count() == len(rows)
    job.refresh_from_db()
    assert (job.status, job.done, job.rows) == ("done", len(rows), [])  # no copy of the rows is kept
