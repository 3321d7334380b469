"""How fast memories go in: the batch write path, an import through its job, extraction per worker.

    python -m bench.writes [--rows 5000] [--embed-rows 1000] [--floor-rows 2000] [--floor-rounds 2] [--windows 60]
                           [--json bench/results/writes.json]

- `write_per_s_precomputed`: `bulk_add` of `--rows` synthetic memories with their vectors given (pool
  vectors with noise, as bench/scale.py), into a fresh user: the database's share alone.
- `write_per_s_with_embedding`: `bulk_add` of `--embed-rows` new sentences embedded by the configured
  (default) embedder, batch by batch, as an import does.
- `floor_per_s`: the floor under the first: `--floor-rows` more such rows copied into the memories table as
  `bulk_add` copies them, in a transaction rolled back, with every index (`all_indexes`), with only the HNSW
  index on the content's vector (`hnsw_only`: no batch write goes faster while every insert updates that
  graph) and with none (`no_index`), each `--floor-rounds` times, alternating.
- `import_5000_s`: the first user's memories exported (the JSON the memories page sends), posted to
  `POST /api/memories/import` as another user, and polled at `GET /api/memories/import/{id}` until done:
  seconds from the POST to the answer that says done, with a real Celery worker (started here, solo pool)
  embedding and writing them; `import_accept_s` is the POST alone (every row checked, the job stored);
  `progress_polls` counts the answers that showed a count short of the total.
- `extraction_windows_per_s`: one worker running `--windows` extraction jobs (one 3-turn chat window each)
  against the scripted OpenAI-protocol model (tests/support/llm_server.py), which answers at once: two
  candidates per window (pool sentences), both decided ADD (one close to a memory already kept merges into
  it: `memories_added` says how many were new). The figure
  is the pipeline's own cost: the task, its embedding, neighbours and writes, and the queue.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import time
from pathlib import Path

import numpy as np

from . import runtime, synthetic

logger = logging.getLogger("bench.writes")
RESULTS = runtime.REPO / "bench" / "results"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.writes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5000, help="memories written with vectors given, then imported")
    parser.add_argument("--embed-rows", type=int, default=1000, help="memories written with embedding")
    parser.add_argument("--floor-rows", type=int, default=2000, help="rows per floor measurement (0: none)")
    parser.add_argument("--floor-rounds", type=int, default=2, help="floor measurements per variant")
    parser.add_argument("--windows", type=int, default=60, help="extraction jobs run by one worker")
    parser.add_argument("--pool", type=int, default=3000, help="base sentences embedded once")
    parser.add_argument("--json", type=Path, default=RESULTS / "writes.json")
    return parser.parse_args(argv)


def write_rate(user_id: int, texts: list[str], vectors: list[list[float]] | None) -> float:
    """Memories per second through bulk_add (vectors None: embedded by the configured embedder)."""
    from memoryapp.engine.memories.bulk import bulk_add
    from memoryapp.engine.memories.validation import MemoryInput

    items = [MemoryInput(content=text) for text in texts]
    started = time.perf_counter()
    written = bulk_add(user_id, items, embeddings=vectors)
    assert all(memory is not None for memory in written), "the bench's sentences must all be new"
    return len(items) / (time.perf_counter() - started)


FLOOR_VARIANTS = ("all_indexes", "hnsw_only", "no_index")
HNSW_INDEX = "memory_embedding_hnsw"


def floor_rates(user_id: int, texts: list[str], vectors: list[list[float]], rounds: int) -> dict[str, list[float]]:
    """Memories per second copied into the table (copy_insert, as bulk_add does) with every index, only the
    content's HNSW index, or none: each in a transaction that drops the others and is rolled back."""
    from django.db import connection, transaction
    from django.utils import timezone

    from memoryapp.engine.memories.copy_rows import copy_insert
    from memoryapp.engine.text import content_key, search_tokens
    from memoryapp.models import Memory

    table = Memory._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [table])
        indexes = [name for (name,) in cursor.fetchall()]
    kept = {"all_indexes": set(indexes), "hnsw_only": {f"{table}_pkey", HNSW_INDEX}, "no_index": {f"{table}_pkey"}}
    rates: dict[str, list[float]] = {variant: [] for variant in FLOOR_VARIANTS}
    for round_ in range(rounds):
        for variant in FLOOR_VARIANTS if round_ % 2 == 0 else reversed(FLOOR_VARIANTS):
            with transaction.atomic():
                with connection.cursor() as cursor:
                    for name in indexes:
                        if name not in kept[variant]:
                            cursor.execute(f'DROP INDEX "{name}"')  # names from pg_indexes, never input
                now = timezone.now()
                rows = [
                    Memory(
                        user_id=user_id,
                        content=text,
                        content_key=content_key(text),
                        valid_from=now,
                        source="imported",
                        embedding=vector,
                        search_tokens=search_tokens(text),
                    )
                    for text, vector in zip(texts, vectors)
                ]
                started = time.perf_counter()
                copy_insert(rows)
                rates[variant].append(round(len(rows) / (time.perf_counter() - started), 1))
                transaction.set_rollback(True)
    return rates


def import_through_job(source, timeout: float = 600) -> dict:
    """Export `source`'s memories, import them as a fresh user through the API and the worker's job."""
    from django.test import Client

    from memoryapp.api.auth import create_token
    from memoryapp.engine.memories import transfer

    body = transfer.export_file(source).body
    target = runtime.fresh_user("writes-import")
    api = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(target, 'bench')[1]}", HTTP_HOST="localhost")
    started = time.perf_counter()
    answer = api.post("/api/memories/import", body, content_type="application/json")
    accepted = time.perf_counter() - started  # every row checked and the job stored: what the client waits
    assert answer.status_code == 202, answer.content
    location, polls, short = answer["Location"], 0, 0
    while time.perf_counter() - started < timeout:
        job = api.get(location).json()
        polls += 1
        if job["status"] in ("done", "failed"):
            break
        short += 0 < job["done"] < job["total"]
        time.sleep(0.1)
    seconds = time.perf_counter() - started
    assert job["status"] == "done", job
    return {
        "import_5000_s" if job["total"] == 5000 else "import_s": round(seconds, 2),
        "import_accept_s": round(accepted, 2),
        "import_rows": job["total"],
        "imported": job["imported"],
        "duplicates": job["duplicates"],
        "progress_polls": short,
        "polls": polls,
        "target": target,
    }


def scripted_extraction_model(sentences: list[str]):
    """The scripted model: every window yields two candidates, sentences of the synthetic pool picked by
    the window's words (tagged by it, so no two windows repeat one word for word), and the decision adds both."""
    from memoryapp.engine.llm.candidates import EXTRACT_MARKER
    from memoryapp.engine.llm.decisions import DECIDE_MARKER
    from tests.support.llm_server import ScriptedLLMServer, system_text

    server = ScriptedLLMServer()

    def answer(body: dict) -> str:
        system = system_text(body)
        tag = hashlib.sha1(json.dumps(body["messages"][1:], sort_keys=True).encode()).hexdigest()[:10]
        if EXTRACT_MARKER in system:
            picks = [sentences[(int(tag, 16) + n * 7919) % len(sentences)] for n in range(2)]
            return json.dumps(
                {
                    "candidates": [
                        {"content": f"{text[:-1]} (window {tag})", "kind": "fact", "importance": 0.6, "confidence": 0.9}
                        for text in picks
                    ]
                }
            )
        if DECIDE_MARKER in system:
            return json.dumps(
                {
                    "decisions": [
                        {"candidate_index": n, "action": "ADD", "target_id": None, "reason": "new"} for n in range(2)
                    ]
                }
            )
        return "Noted."

    server.default = answer
    return server


def extraction_rate(windows: int, timeout: float = 600) -> dict:
    """Windows per second through one worker: the jobs queued at once, timed until the last run finishes."""
    from conversations.models import Conversation, Message
    from memoryapp.engine import jobs
    from memoryapp.models import Memory
    from memoryapp.pipeline.models import ExtractionRun, RunStatus

    user = runtime.fresh_user("writes-extract")
    queued = []
    for n in range(windows):
        conversation = Conversation.objects.create(user=user, title=f"bench {n}")
        ids = []
        for turn in range(3):
            ids.append(
                Message.objects.create(
                    conversation=conversation,
                    role="user",
                    content=f"Window {n}, turn {turn}: I keep a notebook on my desk.",
                ).pk
            )
            ids.append(Message.objects.create(conversation=conversation, role="assistant", content="Noted.").pk)
        queued.append((conversation.pk, ids))
    started = time.perf_counter()
    for conversation_id, ids in queued:
        jobs.enqueue(jobs.Job.EXTRACT, conversation_id, ids)
    runs = ExtractionRun.objects.filter(user=user)
    while time.perf_counter() - started < timeout:
        if runs.filter(status__in=[RunStatus.DONE, RunStatus.FAILED]).count() >= windows:
            break
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    done = runs.filter(status=RunStatus.DONE)
    return {
        "extraction_windows": windows,
        "extraction_done": done.count(),
        "extraction_windows_per_s": round(done.count() / seconds, 2),
        "extraction_task_s_mean": round(float(np.mean([r.seconds for r in done])), 3) if done else None,
        "memories_added": Memory.objects.filter(user=user).count(),
        "user": user,
    }


def run(args: argparse.Namespace) -> dict:
    runtime.setup_django()
    from django.conf import settings

    from memoryapp.engine.warmup import warm_embedder
    from tests.support.processes import start_worker, stop_process

    from .ingest import embed_cached
    from .load import app_env

    warm_embedder()
    pool = synthetic.base_sentences(args.pool)
    pool_vectors = np.asarray(embed_cached(pool, Path(settings.VAR_DIR) / "embcache")[0], dtype=np.float32)
    result: dict = {"embedding_model": settings.EMBEDDING_MODEL, "rows": args.rows, "embed_rows": args.embed_rows}

    source = runtime.fresh_user("writes-source")
    rows = synthetic.memories(args.rows, pool)
    vectors = synthetic.perturbed(pool_vectors, [i for _, i in rows]).tolist()
    result["write_per_s_precomputed"] = round(write_rate(source.pk, [text for text, _ in rows], vectors), 1)
    logger.info("precomputed: %s/s", result["write_per_s_precomputed"])
    if args.floor_rows:
        extra = synthetic.memories(args.floor_rows, pool, start=40_000_000)
        extra_vectors = synthetic.perturbed(pool_vectors, [i for _, i in extra]).tolist()
        result["floor_per_s"] = floor_rates(source.pk, [text for text, _ in extra], extra_vectors, args.floor_rounds)
        logger.info("floor: %s", result["floor_per_s"])

    embedded = runtime.fresh_user("writes-embed")
    texts = [text for text, _ in synthetic.memories(args.embed_rows, pool, start=20_000_000)]
    result["write_per_s_with_embedding"] = round(write_rate(embedded.pk, texts, None), 1)
    logger.info("with embedding: %s/s", result["write_per_s_with_embedding"])
    embedded.delete()

    model = scripted_extraction_model(pool).__enter__()
    logs = runtime.REPO / "var" / "bench" / "writes-logs"
    logs.mkdir(parents=True, exist_ok=True)
    worker = start_worker(app_env(model.url), logs / "worker.log", f"writes-{os.getpid()}@%h")
    try:
        imported = import_through_job(source)
        target = imported.pop("target")
        result.update(imported)
        logger.info("import through the job: %s", imported)
        target.delete()
        source.delete()
        extraction = extraction_rate(args.windows)
        extraction.pop("user").delete()
        result.update(extraction)
        logger.info("extraction: %s", extraction)
    finally:
        stop_process(worker)
        model.__exit__(None, None, None)
    return result


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    args = parse_args(argv)
    result = run(args)
    runtime.write_result(args.json, result, "bench.writes", argv)
    print(json.dumps({k: v for k, v in result.items()}, indent=1))


if __name__ == "__main__":
    main()
