"""Bounded load on loopback: concurrent chat sessions over the real websocket plus API readers.

    python -m bench.load [--sessions 50] [--readers 10] [--duration 120] [--think 2]
                         [--model offline|scripted] [--json OUT]
    python -m bench.load --plot docs/img/load_latency.png RESULT.json [RESULT.json ...]

It starts the app as `./run` does (Daphne and a Celery worker, on the bench's embedded Postgres and
Redis under var/bench), signs in one user per session, then for `--duration` seconds each session
sends a message over /ws/chat/, waits for the whole streamed reply and "thinks" for about `--think`
seconds (uniform 0.5x-1.5x), while each reader loops over the memories list, search and the chat
list of the REST API with a Bearer token. The model is the built-in offline one, or the scripted
OpenAI-protocol stand-in (tests/support/llm_server.py) streaming a short reply. Every failed
request, error frame or lost message counts as an error. Latency percentiles go to the JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import subprocess
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from . import runtime
from .metrics import latency_summary
from .plots import plot_load

logger = logging.getLogger("bench.load")
RESULTS = runtime.REPO / "bench" / "results"
FINAL_FRAME = "outerHTML:#pending-"  # the saved reply replaces the streamed one
ERROR_MARKS = ("message-error", 'id="turn-status" hx-swap-oob="innerHTML"><p')

MESSAGES = [
    "I prefer green tea over coffee in the morning.",
    "My favourite city for a weekend is Lisbon.",
    "What should I cook tonight? Something quick.",
    "I work as a piano teacher and my students are mostly kids.",
    "Can you suggest a book for a long train ride?",
    "I'm training for a half marathon in October.",
    "我喜欢周末去杭州爬山。",
    "Remind me what I said about tea?",
    "I always forget to water the plants on Fridays.",
    "Plan a short workout I can do at home.",
]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50, help="concurrent chat sessions (one user each)")
    parser.add_argument("--readers", type=int, default=10, help="concurrent API readers")
    parser.add_argument("--duration", type=float, default=120, help="seconds of load")
    parser.add_argument("--think", type=float, default=2.0, help="mean pause between a reply and the next message")
    parser.add_argument("--model", choices=("offline", "scripted"), default="offline")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--web-processes",
        type=int,
        default=0,
        help="Daphne processes on the port (0: as ./run, one per core, at most 4)",
    )
    parser.add_argument("--json", type=Path, default=None, help="default: bench/results/load_<model>.json")
    parser.add_argument("--plot", type=Path, default=None, help="draw the given results as a PNG, run nothing")
    parser.add_argument("results", type=Path, nargs="*", help="result JSONs for --plot")
    return parser.parse_args(argv)


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    examples: list[str] = field(default_factory=list)

    def ok(self, what: str, seconds: float) -> None:
        self.latencies[what].append(seconds * 1000)

    def fail(self, what: str, detail: str) -> None:
        self.errors[what] += 1
        if len(self.examples) < 10:
            self.examples.append(f"{what}: {detail[:300]}")


@dataclass
class Actor:
    user_id: int
    conversation_id: int
    session: str
    token: str


# --- setup ----------------------------------------------------------------------------------------


def make_actors(count: int, run: str) -> list[Actor]:
    """One user per session, with a chat, a few memories to recall, a session cookie and a token."""
    from django.test import Client

    from conversations.models import Conversation
    from memoryapp.api.auth import create_token
    from memoryapp.engine.memories.write import add_memory

    actors = []
    for i in range(count):
        user = runtime.fresh_user(f"load-{run}-{i}")
        for text in ("Prefers green tea in the morning", f"Lives in city number {i}", "Is training for a race"):
            add_memory(user, text)
        client = Client()
        client.force_login(user)
        actors.append(
            Actor(
                user.pk,
                Conversation.objects.create(user=user).pk,
                client.cookies["sessionid"].value,
                create_token(user, "load")[1],
            )
        )
    return actors


def app_env(llm_url: str | None) -> dict[str, str]:
    from django.conf import settings

    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(
        DATABASE_URL=settings.DATABASE_URL,
        REDIS_URL=settings.REDIS_URL,
        PYTHONUNBUFFERED="1",
        MEMORYAPP_VAR_DIR=str(settings.VAR_DIR),
        GRAPH_BACKEND="off",
        DEBUG="False",
        SECRET_KEY=settings.SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1,localhost",
    )
    if llm_url:
        env.update(OPENAI_BASE_URL=llm_url, OPENAI_API_KEY="bench", LLM_MODEL="scripted-model")
    return env


def start_app(env: dict[str, str], logs: Path, web_processes: int) -> tuple[list[subprocess.Popen], str]:
    """The web processes and a worker, as `./run` starts them; returns the processes and the base URL."""
    from memoryapp.stack.processes import web_process_count
    from tests.support.processes import start_web, start_worker

    logs.mkdir(parents=True, exist_ok=True)
    worker = start_worker(env, logs / "worker.log", f"load-{os.getpid()}@%h", wait=False)
    webs, url = start_web(env, logs / "daphne.log", web_process_count(web_processes))
    return [*webs, worker], url


def scripted_model():
    """The OpenAI-protocol stand-in: chat replies stream a short answer; extraction finds nothing."""
    from tests.support.llm_server import ScriptedLLMServer, system_text

    server = ScriptedLLMServer()

    def answer(body: dict) -> str:
        if "[memoryapp:" in system_text(body):
            return '{"candidates": [], "decisions": []}'
        return "Thanks, noted. Here is a short answer with a few words to stream back to you."

    server.default = answer
    return server


# --- load -----------------------------------------------------------------------------------------


async def chat_session(base: str, actor: Actor, deadline: float, think: float, tally: Tally, rng: random.Random):
    import websockets

    url = base.replace("http", "ws") + f"/ws/chat/{actor.conversation_id}/"
    headers = {"Cookie": f"sessionid={actor.session}", "Origin": base}
    await asyncio.sleep(rng.uniform(0, think))  # do not start all 50 in the same millisecond
    try:
        async with websockets.connect(url, additional_headers=headers, open_timeout=30, max_size=2**22) as ws:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                await ws.send(json.dumps({"action": "send", "text": rng.choice(MESSAGES)}))
                first, frames = None, ""
                while FINAL_FRAME not in frames:
                    frame = await asyncio.wait_for(ws.recv(), timeout=60)
                    if first is None and '-body" hx-swap-oob="beforeend"' in frame:
                        first = time.perf_counter()
                    frames += frame
                    if any(mark in frame for mark in ERROR_MARKS):
                        raise RuntimeError(frame)
                done = time.perf_counter()
                tally.ok("chat turn (whole reply)", done - started)
                tally.ok("chat first token", (first or done) - started)
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
    except Exception as exc:  # any failure ends this session and is counted
        tally.fail("chat", f"{type(exc).__name__}: {exc}")


async def api_reader(base: str, actors: list[Actor], deadline: float, tally: Tally, rng: random.Random):
    import httpx

    calls = [
        ("GET /api/memories", "GET", "/api/memories", None),
        ("POST /api/memories/search", "POST", "/api/memories/search", {"query": "what tea do I like"}),
        ("GET /api/conversations", "GET", "/api/conversations", None),
    ]
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < deadline:
            actor = rng.choice(actors)
            name, method, path, body = rng.choice(calls)
            started = time.perf_counter()
            try:
                response = await http.request(
                    method, path, json=body, headers={"Authorization": f"Bearer {actor.token}"}
                )
            except httpx.HTTPError as exc:
                tally.fail(name, f"{type(exc).__name__}: {exc}")
                continue
            if response.status_code == 200:
                tally.ok(name, time.perf_counter() - started)
            else:
                tally.fail(name, f"{response.status_code} {response.text}")
            await asyncio.sleep(rng.uniform(0.05, 0.25))


async def drive(base: str, actors: list[Actor], args: argparse.Namespace) -> Tally:
    tally, deadline = Tally(), time.monotonic() + args.duration
    rng = random.Random(args.seed)
    tasks = [chat_session(base, actor, deadline, args.think, tally, random.Random(rng.random())) for actor in actors]
    tasks += [api_reader(base, actors, deadline, tally, random.Random(rng.random())) for _ in range(args.readers)]
    await asyncio.gather(*tasks)
    return tally


def lost_messages(actors: list[Actor]) -> int:
    """User messages without a reply after the run: each one is a turn the user lost."""
    from conversations.models import Message

    lost = 0
    for actor in actors:
        roles = list(
            Message.objects.filter(conversation_id=actor.conversation_id)
            .order_by("created_at", "id")
            .values_list("role", flat=True)
        )
        lost += sum(
            1 for i, role in enumerate(roles) if role == "user" and (i + 1 >= len(roles) or roles[i + 1] != "assistant")
        )
    return lost


def run(args: argparse.Namespace) -> dict:
    from tests.support.processes import stop_process

    runtime.setup_django()
    run_id = f"{int(time.time())}"
    actors = make_actors(args.sessions, run_id)
    model = scripted_model().__enter__() if args.model == "scripted" else None
    processes, base = start_app(
        app_env(model.url if model else None), runtime.REPO / "var" / "bench" / "load-logs", args.web_processes
    )
    try:
        started = time.monotonic()
        tally = asyncio.run(drive(base, actors, args))
        elapsed = time.monotonic() - started
    finally:
        for process in processes:
            stop_process(process)
        if model:
            model.__exit__(None, None, None)
    lost = lost_messages(actors)
    turns = len(tally.latencies["chat turn (whole reply)"])
    return {
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "web_processes_started": len(processes) - 1,
        "seconds": round(elapsed, 1),
        "chat_turns": turns,
        "chat_turns_per_second": round(turns / elapsed, 2),
        "api_reads": sum(len(v) for k, v in tally.latencies.items() if k.startswith(("GET", "POST"))),
        "errors": dict(tally.errors),
        "error_examples": tally.examples,
        "lost_messages": lost,
        "latency_ms": {name: latency_summary(values) for name, values in sorted(tally.latencies.items())},
    }


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request would drown the summary
    args = parse_args(argv)
    if args.plot:
        plot_load([json.loads(result.read_text()) for result in args.results], args.plot)
        return 0
    result = run(args)
    out = args.json or RESULTS / f"load_{args.model}.json"
    runtime.write_result(out, result, "bench.load", argv)
    print(f"{args.sessions} chat sessions + {args.readers} API readers, {result['seconds']} s, model {args.model}")
    print(
        f"chat turns {result['chat_turns']} ({result['chat_turns_per_second']}/s), API reads {result['api_reads']}, "
        f"errors {sum(result['errors'].values())}, lost messages {result['lost_messages']}"
    )
    for name, summary in result["latency_ms"].items():
        print(f"  {name:28} p50 {summary['p50']:8.1f} ms  p95 {summary['p95']:8.1f} ms  n {summary['n']}")
    for example in result["error_examples"]:
        print("  error:", example)
    return 0 if not result["errors"] and not result["lost_messages"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
