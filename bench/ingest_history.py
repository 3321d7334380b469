"""Learning from a ChatGPT or Claude export end to end (issue #44): how long, how much memory, how many model
calls, and whether the dates it learnt answer "where did I live in 2024?".

    python -m bench.ingest_history [--conversations 1000] [--formats chatgpt claude] [--scripted 100]
                                   [--requests 200] [--no-responsiveness]
                                   [--seed 44] [--json bench/results/ingest_history.json]

The exports are bench/history_data.py's (written once under var/bench/history, reused while their
conversation count and seed match): one user's history, about 20 messages a conversation, who lived in
Chengdu until April 2025 and in Berlin after. Per format (the zip as downloaded), a fresh user:

- `receive`: the upload kept and previewed (engine/history/importing.py), timed.
- `learn`: every conversation ticked (`start`), then `run_history_import(job, llm=None)` in this process,
  as the worker runs it, with the default embedder (warmed first, as a worker is). Seconds, conversations/s,
  memories created and superseded, and the process's resident memory before, after and at its peak
  (VmHWM, reset at the start where /proc/self/clear_refs allows; else the peak since the process began).
- `dated`: what a chat turn is handed (`start_turn`, no model) for "Where did I live in 2024?" (Chengdu,
  never Berlin) and "Where do I live now?" (Berlin, never Chengdu), in English and Chinese.

No worker and no graph run here: every job kind gets a stand-in runner that counts what is queued (each
memory written queues its graph sync through the signal, tasks/receivers.py; a deployment's graph worker
takes those in another process), and the graph is off (GRAPH_BACKEND=off, as bench.chat).

`scripted`: of the first format's export, every k-th conversation (oldest first, `--scripted` of them)
learnt with the scripted OpenAI-protocol model (tests/support/llm_server.py) through the real client,
which counts its calls. The model finds a memory in every window it reads (the window's first user turn,
verbatim) and adds it: every window with a user turn costs an extraction call and, once there are
memories near it, a decision call, the most the import can spend. The goal: at most one call per 5 user
turns (the preview's count of the ticked conversations' user turns).

`responsiveness` (issue #44: "the app stays responsive while an import runs"): the app served by Daphne
as `./run` starts it (bench/load.py's helpers), and one client signed in as the first format's user (the
memories its import left) sending `POST /api/memories/search` and `GET /api/memories` in turn, one at a
time, 0.05-0.15 s apart, each timed (p50, p95). Four phases: nothing else of ours running (`--requests`
of each call); then while another process (`python -m bench.ingest_history --learn-job ID`: the
worker's call, run_history_import, with its embedder warmed first, on the same Postgres) learns the
first format's export into a fresh user, for as long as it learns; then the same with that process
under `nice -n 19` (its Postgres connection's backend is not niced); then with OPENBLAS_NUM_THREADS=1 in
its environment.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

from . import runtime
from .history_data import DEFAULT_SEED, write_exports

logger = logging.getLogger("bench.ingest_history")
RESULTS = runtime.REPO / "bench" / "results"
DATA = runtime.REPO / "var" / "bench" / "history"
FORMATS = ("chatgpt", "claude")
QUESTIONS = (  # (question, the city it must name, the city it must not)
    ("Where did I live in 2024?", "before"),
    ("我2024年住在哪里？", "before"),
    ("Where do I live now?", "after"),
    ("我现在住在哪？", "after"),
)
GOALS = {"learn_seconds": 300, "rss_growth_mb": 150, "calls_per_5_user_turns": 1.0}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.ingest_history", description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=1000, help="conversations in the export")
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS), help="exports learnt whole")
    parser.add_argument("--scripted", type=int, default=100, help="conversations learnt with the scripted model")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--data", type=Path, default=DATA, help="where the exports are written and reused")
    parser.add_argument("--json", type=Path, default=RESULTS / "ingest_history.json")
    parser.add_argument("--requests", type=int, default=200, help="timed API calls of each kind, nothing running")
    parser.add_argument(
        "--responsiveness",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time the API alone and while another process learns an import",
    )
    parser.add_argument("--learn-job", type=int, help=argparse.SUPPRESS)  # the learning process's mode
    return parser.parse_args(argv)


# --- the machinery around the job --------------------------------------------------------------------


class Counted:
    """Stands in for a job's Celery task: counts what is queued, runs nothing (no worker in the bench)."""

    def __init__(self, kind) -> None:
        self.name, self.queued = f"bench.{kind.value}", 0

    def delay(self, *args) -> None:
        self.queued += 1


def count_jobs() -> dict:
    from memoryapp.engine import jobs

    runners = {kind: Counted(kind) for kind in jobs.Job}
    jobs.register(runners)
    return runners


def queued(runners: dict) -> dict[str, int]:
    return {kind.value: runner.queued for kind, runner in runners.items() if runner.queued}


def _status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return None


def reset_peak() -> bool:
    """Start the peak resident size (VmHWM) from now, so it is this run's; False where Linux refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def data(args: argparse.Namespace):
    """The exports, written once: rewriting 1,000 conversations in both formats takes a while."""
    from .history_data import HistoryFiles

    out = args.data
    files = HistoryFiles(
        out / "chatgpt.json", out / "chatgpt.zip", out / "claude.json", out / "claude.zip", out / "truth.json"
    )
    if files.truth.exists() and all(p.exists() for p in (files.chatgpt_zip, files.claude_zip)):
        truth = json.loads(files.truth.read_text())
        if (truth["conversations"], truth["seed"]) == (args.conversations, args.seed):
            return files, truth
    started = time.perf_counter()
    files = write_exports(out, args.conversations, args.seed)
    logger.info("wrote the exports in %.0f s under %s", time.perf_counter() - started, out)
    return files, json.loads(files.truth.read_text())


def receive(user, path: Path):
    from memoryapp.engine.history import importing

    started = time.perf_counter()
    with open(path, "rb") as handle:
        job = importing.receive(user, handle, path.name)
    return job, time.perf_counter() - started


# --- the measurements ----------------------------------------------------------------------------------


def learn_whole(path: Path, truth: dict, runners: dict, ran_before: list[str]):
    """One export, every conversation ticked, learnt with no model; then the dated questions. `ran_before`:
    the imports this process ran already (its memory then grows from what they left allocated). Returns
    the result and the user (the caller deletes it: the responsiveness phase searches its memories)."""
    from memoryapp.engine.history import importing
    from memoryapp.models import ChangeQuestion, Memory, MemoryStatus

    user = runtime.fresh_user("ingest-history")
    job, receive_s = receive(user, path)
    everything = importing.totals_of(job)
    job = importing.start(job, ticked=[row.id for row in importing.rows_of(job)])
    before = dict(queued(runners))
    gc.collect()
    rss_before, peak_reset = _status_mb("VmRSS"), reset_peak()
    started = time.perf_counter()
    job = importing.run_history_import(job.pk, llm=None)
    seconds = time.perf_counter() - started
    rss_after, rss_peak = _status_mb("VmRSS"), _status_mb("VmHWM")
    assert job.status == "done", job.error
    active = Memory.objects.filter(user=user, status=MemoryStatus.ACTIVE)
    result = {
        "file": path.name,
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "conversations": job.done,
        "user_turns": everything.user_turns,
        "receive_s": round(receive_s, 2),
        "learn_s": round(seconds, 1),
        "conversations_per_s": round(job.done / seconds, 2),
        "created": job.created,
        "superseded": job.superseded,
        "suggested": job.suggested,
        "memories_current": active.filter(valid_until__isnull=True).count(),
        "expected_memories": everything.expected_memories,  # what the preview told the user to expect
        "questions_asked": ChangeQuestion.objects.filter(user=user).count(),  # changes left for the user to settle
        "model_calls": job.model_calls,
        "rss_mb": {
            "before": round(rss_before, 1),
            "after": round(rss_after, 1),
            "peak": round(rss_peak, 1),
            "growth_after": round(rss_after - rss_before, 1),
            "growth_peak": round(rss_peak - rss_before, 1),
            "peak_since": "the import's start" if peak_reset else "the process's start",
            "ran_before": ran_before,
        },
        "queued": {kind: n - before.get(kind, 0) for kind, n in queued(runners).items() if n - before.get(kind, 0)},
        "dated": dated_check(user, truth),
    }
    logger.info("%s: %s", path.name, {k: v for k, v in result.items() if k != "dated"})
    return result, user


def dated_check(user, truth: dict) -> list[dict]:
    """What a chat turn is handed for each question, and whether it names the right city and not the other."""
    from conversations.models import Conversation
    from memoryapp.engine.chat.chat import start_turn

    cities = truth["city"]
    checks = []
    for question, when in QUESTIONS:
        right = tuple(cities[when].values())  # the city in English and in Chinese
        wrong = tuple(cities["after" if when == "before" else "before"].values())
        chat = Conversation.objects.create(user=user)
        turn = start_turn(chat, question, enqueue_extraction=lambda *args, **kwargs: None, llm=None)
        handed = [item.memory.content for item in turn.recalled]
        chat.delete()
        said = " ".join(handed)
        names = any(name in said for name in right)
        not_other = not any(name in said for name in wrong)
        checks.append(
            {
                "question": question,
                "expects": right[0],
                "passed": names and not_other,
                "names_it": names,
                "names_the_other": not not_other,
                "handed": handed,
            }
        )
        logger.info("%s -> %s %s", question, "pass" if names and not_other else "FAIL", handed)
    return checks


def scripted_model():
    """The scripted model: in every window it finds the first user turn worth keeping; it adds every candidate."""
    from memoryapp.engine.llm.candidates import EXTRACT_MARKER
    from memoryapp.engine.llm.decisions import DECIDE_MARKER
    from tests.support.llm_server import ScriptedLLMServer, system_text

    server = ScriptedLLMServer()

    def answer(body: dict) -> str:
        system, asked = system_text(body), str(body["messages"][-1]["content"])
        if EXTRACT_MARKER in system:
            said = [line[len("user: ") :] for line in asked.splitlines() if line.startswith("user: ")]
            candidate = {"content": said[0][:2000], "kind": "fact", "importance": 0.6, "confidence": 0.9}
            return json.dumps({"candidates": [candidate] if said else []}, ensure_ascii=False)
        if DECIDE_MARKER in system:
            items = json.loads(re.search(r"<candidates>\n(.*)\n</candidates>", asked, re.S)[1])
            decisions = [
                {"candidate_index": n, "action": "ADD", "target_id": None, "reason": "new"} for n in range(len(items))
            ]
            return json.dumps({"decisions": decisions})
        return "{}"

    server.default = answer
    return server


def learn_scripted(path: Path, count: int) -> dict:
    """Every k-th conversation of the export, learnt with the scripted model: its calls per 5 user turns."""
    from memoryapp.engine.history import importing
    from memoryapp.engine.llm.candidates import EXTRACT_MARKER
    from memoryapp.engine.llm.decisions import DECIDE_MARKER
    from memoryapp.providers.llm.openai_compat import OpenAICompatibleLLM

    tasks = {"extract": EXTRACT_MARKER, "decide": DECIDE_MARKER}

    user = runtime.fresh_user("ingest-history-scripted")
    job, _ = receive(user, path)
    rows = sorted(importing.rows_of(job), key=lambda row: (row.created_at is None, row.created_at))
    ticked = rows[:: max(1, len(rows) // count)][:count]
    job = importing.start(job, ticked=[row.id for row in ticked])
    user_turns = sum(row.user_turns for row in ticked)
    with scripted_model() as server:
        llm = OpenAICompatibleLLM(server.url, "bench", "scripted-model", timeout=60)
        started = time.perf_counter()
        job = importing.run_history_import(job.pk, llm=llm)
        seconds = time.perf_counter() - started
        kinds = {task: len(server.chat_requests(marker)) for task, marker in tasks.items()}
    assert job.status == "done", job.error
    user.delete()
    result = {
        "file": path.name,
        "conversations": job.done,
        "user_turns": user_turns,
        "model_calls": job.model_calls,
        "client_calls": llm.calls,
        "calls_by_task": kinds,  # as the server saw them (a retried answer is another call)
        "calls_per_5_user_turns": round(job.model_calls / (user_turns / 5), 3),
        # one extraction call a window is the floor: what no answer of the model can save
        "extract_calls_per_5_user_turns": round(kinds["extract"] / (user_turns / 5), 3),
        "learn_s": round(seconds, 1),
        "created": job.created,
        "superseded": job.superseded,
    }
    logger.info("scripted: %s", result)
    return result


# --- responsiveness: the API's latency while another process learns an import -----------------------------

CALLS = (("POST /api/memories/search", "POST", "/api/memories/search"), ("GET /api/memories", "GET", "/api/memories"))
SEARCHES = ("where do I live", "我住在哪里", "cooking for friends", "my running plan", "我的猫", "learning German")
PAUSE_S = (0.05, 0.15)  # between one answer and the next request: a person clicking about, a little fast
# How each phase's learning process is started: under nice or not, with what added to its environment.
# OpenBLAS (numpy's) runs a matrix product on every core and its idle threads spin; the embedder limits
# its own products to one thread, the engine's other numpy products (the learned models' among them) do not.
LEARNERS = {
    "import": (False, {}),
    "import_niced": (True, {}),
    "import_one_blas_thread": (False, {"OPENBLAS_NUM_THREADS": "1"}),
}


def learn_job(job_id: int) -> None:
    """The learning process (--learn-job): what the worker's task runs, in a process of its own on the
    parent's Postgres (its environment: bench.load's app_env). Says "learning" once warm, then its figures."""
    runtime.setup_django()
    from memoryapp.engine.history.importing import run_history_import
    from memoryapp.engine.warmup import warm_embedder

    count_jobs()  # graph syncs counted, not queued, as in `learn`
    warm_embedder()  # a worker's is loaded before its first task
    print("learning", flush=True)
    started, cpu = time.perf_counter(), time.process_time()
    job = run_history_import(job_id, llm=None)
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "status": job.status,
                "conversations": job.done,
                "learn_s": round(seconds, 1),
                "cpu_s": round(time.process_time() - cpu, 1),
            }
        ),
        flush=True,
    )


def start_learner(user, path: Path, env: dict, log: Path, niced: bool) -> subprocess.Popen:
    """`user`'s import of `path`, started (queued to the stand-in) and learnt by a child process; returns
    once that process is warm and learning."""
    from memoryapp.engine.history import importing

    job, _ = receive(user, path)
    importing.start(job, ticked=[row.id for row in importing.rows_of(job)])
    command = [sys.executable, "-m", "bench.ingest_history", "--learn-job", str(job.pk)]
    with open(log, "w") as out:
        child = subprocess.Popen(
            ["nice", "-n", "19", *command] if niced else command,
            cwd=runtime.REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=out,
            text=True,
        )
    for line in child.stdout:  # whatever a library prints first is skipped
        if line.strip() == "learning":
            return child
    child.wait()
    raise RuntimeError(f"the learning process failed: {log.read_text()[-3000:]}")


def learnt(child: subprocess.Popen, log: Path) -> dict:
    """The figures the learning process printed last."""
    lines = child.stdout.read().strip().splitlines()
    if child.wait() != 0 or not lines:
        raise RuntimeError(f"the learning process failed: {log.read_text()[-3000:]}")
    figures = json.loads(lines[-1])
    assert figures["status"] == "done", figures
    return figures


def sample(http, done, rng: random.Random):
    """The calls in turn, one at a time, paced, until `done(tally)`; bench.load's tally of latencies (ms)."""
    import httpx

    from .load import Tally

    tally, n, started = Tally(), 0, time.monotonic()
    while not done(tally):
        name, method, path = CALLS[n % len(CALLS)]
        body = {"query": SEARCHES[n // len(CALLS) % len(SEARCHES)]} if method == "POST" else None
        n += 1
        sent = time.perf_counter()
        try:
            response = http.request(method, path, json=body)
        except httpx.HTTPError as exc:
            tally.fail(name, f"{type(exc).__name__}: {exc}")
            continue
        if response.status_code == 200:
            tally.ok(name, time.perf_counter() - sent)
        else:
            tally.fail(name, f"{response.status_code} {response.text}")
        time.sleep(rng.uniform(*PAUSE_S))
    return tally, time.monotonic() - started


def _phase(tally, seconds: float) -> dict:
    from .metrics import latency_summary

    return {
        "latency_ms": {name: latency_summary(tally.latencies[name]) for name, *_ in CALLS},
        "errors": dict(tally.errors),
        "error_examples": tally.examples,
        "seconds": round(seconds, 1),
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],  # ours included: what else ran shows here
    }


def responsiveness(user, path: Path, requests: int) -> dict:
    """p50/p95 of the API alone, then while another process learns `path`, started each way of LEARNERS."""
    import httpx

    from memoryapp.api.auth import create_token
    from memoryapp.models import Memory, MemoryStatus
    from tests.support.processes import start_daphne, stop_process

    from .load import app_env

    env, logs = app_env(None), runtime.bench_var_dir() / "ingest-history-logs"
    logs.mkdir(parents=True, exist_ok=True)
    daphne, base = start_daphne(env, logs / "daphne.log")  # loads its embedder before it listens (asgi.py)
    token = create_token(user, "bench")[1]
    rng = random.Random(44)
    phases, learners, child = {}, [], None

    def enough(tally) -> bool:
        return all(len(tally.latencies[name]) >= requests for name, *_ in CALLS)

    try:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            sample(http, lambda tally: sum(map(len, tally.latencies.values())) >= 20, rng)  # warm: untimed
            phases["alone"] = _phase(*sample(http, enough, rng))
            for phase, (niced, added) in LEARNERS.items():
                learners.append(runtime.fresh_user("ingest-history-learner"))
                log = logs / f"{phase}.log"
                child = start_learner(learners[-1], path, {**env, **added}, log, niced)
                phases[phase] = _phase(*sample(http, lambda _: child.poll() is not None, rng))  # noqa: B023
                phases[phase]["learner"] = {"niced": niced, "env": added, **learnt(child, log)}
                logger.info("%s: %s", phase, phases[phase])
                learners.pop().delete()  # each phase starts from the same database
    finally:
        if child is not None and child.poll() is None:
            stop_process(child)
        stop_process(daphne)
        for learner in learners:
            learner.delete()
    alone = phases["alone"]["latency_ms"]
    for phase in phases.values():  # p95 while importing, over p95 alone
        phase["p95_ratio"] = {k: round(v["p95"] / alone[k]["p95"], 2) for k, v in phase["latency_ms"].items()}
    return {
        # active: the current ones and the earlier versions the import's changes left
        "searched_memories": Memory.objects.filter(user=user, status=MemoryStatus.ACTIVE).count(),
        "pause_s": list(PAUSE_S),
        "phases": phases,
    }


def run(args: argparse.Namespace) -> dict:
    os.environ.setdefault("GRAPH_BACKEND", "off")  # no graph server in the bench; its syncs are counted below
    runtime.setup_django()
    from django.conf import settings

    from memoryapp.engine.warmup import warm_chat, warm_embedder

    runners = count_jobs()
    warm_embedder()  # a worker has its embedder loaded: neither the time nor the memory is the import's
    warm_chat()
    files, truth = data(args)
    result: dict = {
        "embedding_model": settings.EMBEDDING_MODEL,
        "graph_backend": settings.GRAPH_BACKEND,
        "seed": args.seed,
        "goals": GOALS,
        "export": {k: truth[k] for k in ("conversations", "messages", "user_turns")},
        "formats": {},
    }
    users = []
    try:
        for name in args.formats:
            path = getattr(files, f"{name}_zip")
            ran_before = [f["file"] for f in result["formats"].values()]
            result["formats"][name], user = learn_whole(path, truth, runners, ran_before)
            users.append(user)
        if args.scripted:
            result["scripted"] = learn_scripted(getattr(files, f"{args.formats[0]}_zip"), args.scripted)
        if args.responsiveness:
            first = getattr(files, f"{args.formats[0]}_zip")
            result["responsiveness"] = responsiveness(users[0], first, args.requests)
    finally:
        for user in users:
            user.delete()  # the bench database is shared by every bench: leave no user behind
    return result


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for name in ("httpx", "httpx2"):  # a line per scripted call drowns the figures
        logging.getLogger(name).setLevel(logging.WARNING)
    args = parse_args(argv)
    if args.learn_job is not None:
        return learn_job(args.learn_job)
    result = run(args)
    runtime.write_result(args.json, result, "bench.ingest_history", argv)
    print(
        json.dumps(
            {k: v for k, v in result.items() if k not in ("formats", "responsiveness")}, indent=1, ensure_ascii=False
        )
    )
    for phase, figures in result.get("responsiveness", {}).get("phases", {}).items():
        for name, summary in figures["latency_ms"].items():
            print(
                f"  {phase:13} {name:26} p50 {summary['p50']:7.1f} ms  p95 {summary['p95']:7.1f} ms  n {summary['n']}"
            )


if __name__ == "__main__":
    main()
